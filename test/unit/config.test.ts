import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config.js';

describe('configuration (platform issue, item 2)', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.publicUrl).toBe('http://localhost:8080');
    expect(config.payUrl).toBe('http://localhost:8080/pay');
    expect(config.brand).toBe('Ivory');
    expect(config.rateLimitPerMinute).toBe(1200);
    expect(config.rateLimitWritesPerMinute).toBe(120);
    expect(config.databaseUrl).toBeUndefined();
  });

  it('derives PAY_URL from PUBLIC_URL and strips trailing slashes', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://pay.example.com/' });
    expect(config.publicUrl).toBe('https://pay.example.com');
    expect(config.payUrl).toBe('https://pay.example.com/pay');
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PUBLIC_URL', 'not a url'],
    ['PUBLIC_URL', 'ftp://x'],
    ['DATABASE_URL', 'mysql://x'],
    ['BRAND', 'Ivory Pay'],
    ['SECRET_KEY', 'short'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['TRUST_PROXY', 'proxy.example'],
    ['LOG_LEVEL', 'loud'],
    ['REDIS_URL', 'http://x'],
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^invalid configuration: ${name} `));
  });

  it('requires SECRET_KEY with DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://localhost/ivory' })).toThrow(/SECRET_KEY/);
  });
});
