import type { IvoryServer } from '../platform/http/server.js';

/**
 * A `fetch` that answers through `server.inject`: the MCP endpoint's tools
 * call Ivory's public API in-process, through every hook a remote client
 * meets (auth, rate limits, idempotency, validation), without a socket.
 * `remoteAddress` is the MCP caller's, so a key's IP allowlist judges the
 * real client, never the loopback.
 */
export function injectingFetch(server: IvoryServer, remoteAddress: string): (input: Request) => Promise<Response> {
  return async (input) => {
    const url = new URL(input.url);
    const payload = input.body === null ? undefined : Buffer.from(await input.arrayBuffer());
    const answer = await server.inject({
      method: input.method as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(input.headers),
      ...(payload === undefined ? {} : { payload }),
      remoteAddress,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
    }
    const empty = answer.rawPayload.length === 0 || answer.statusCode === 204 || answer.statusCode === 304;
    return new Response(empty ? null : answer.rawPayload, { status: answer.statusCode, headers });
  };
}
