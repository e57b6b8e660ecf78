import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyBrandedSignature } from '../webhook-delivery/index.js';

/** One delivery as the receiver saw it. */
export interface ReceivedWebhook {
  readonly verified: boolean;
  readonly eventId: string;
  readonly type: string;
  readonly body: string;
}

export interface WebhookReceiver {
  /** The address to register, e.g. `http://127.0.0.1:4000/hooks`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A development receiver of Ivory's webhooks: checks the branded signature
 * (`<Brand>-Signature`, HMAC-SHA256 of `<t>.<raw body>` keyed with the
 * endpoint's secret, docs/webhooks.md) over the raw bytes, answers 204 to a
 * verified delivery and 401 to anything else, and reports each one.
 */
export async function startWebhookReceiver(options: {
  readonly host: string;
  readonly port: number;
  readonly secret: string;
  readonly onDelivery: (delivery: ReceivedWebhook) => void;
}): Promise<WebhookReceiver> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = brandedSignature(request.headers);
      const verified = header !== undefined && verifyBrandedSignature(header, options.secret, raw, Math.floor(Date.now() / 1000));
      const envelope = parseEnvelope(raw);
      options.onDelivery({ verified, eventId: envelope.id, type: envelope.type, body: raw.toString('utf8') });
      response.writeHead(verified ? 204 : 401).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/hooks`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The `<Brand>-Signature` header, whatever the operator's brand (the Standard Webhooks one is `webhook-signature`). */
function brandedSignature(headers: http.IncomingHttpHeaders): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (name.endsWith('-signature') && name !== 'webhook-signature' && typeof value === 'string') return value;
  }
  return undefined;
}

function parseEnvelope(raw: Buffer): { id: string; type: string } {
  try {
    const envelope = JSON.parse(raw.toString('utf8')) as { id?: unknown; type?: unknown };
    return { id: String(envelope.id ?? ''), type: String(envelope.type ?? '') };
  } catch {
    return { id: '', type: '(not JSON)' };
  }
}
