import { readFileSync } from 'node:fs';

/**
 * The private key on standard input (with or without `0x`), or undefined after
 * printing, under the command's name, that it is not 0x and 64 hex digits.
 */
export function readPrivateKey(command: string): `0x${string}` | undefined {
  const key = readFileSync(0, 'utf8').trim();
  const privateKey = key.startsWith('0x') ? key : `0x${key}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    console.error(`${command}: standard input must hold a private key: 0x followed by 64 hex digits`);
    return undefined;
  }
  return privateKey as `0x${string}`;
}
