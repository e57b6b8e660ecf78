import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a loopback receiver got: the raw bytes exactly as they arrived. */
export interface Received {
  readonly method: string;
  /** The path and query as sent. */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  readonly at: number;
}

/**
 * How the receiver answers one request: a status (and headers), `hang` (never
 * answers; the sender must time out) or `reset` (drops the connection, as a
 * receiver that is down).
 */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'reset';

export interface Receiver {
  /** `http://127.0.0.1:<port>/hook`. */
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  /** Requests that got an answer (or a reset); hung ones stay out until the sender gives up. */
  completed: number;
  answer: (request: Received, index: number) => Answer;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 (SPEC tests use real receivers, not mocks). */
export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 200 })): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    completed: 0,
    answer,
    close: async () => {},
  };
  const server = createServer((incoming, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: Received = { method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body: Buffer.concat(chunks), at: Date.now() };
      const index = receiver.received.push(request) - 1;
      const reply = receiver.answer(request, index);
      if (reply === 'hang') {
        response.on('close', () => (receiver.completed += 1));
        return;
      }
      receiver.completed += 1;
      if (reply === 'reset') {
        incoming.socket.destroy();
        return;
      }
      response.writeHead(reply.status, reply.headers ?? {});
      response.end(reply.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
