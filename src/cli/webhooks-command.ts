import { parseCommandFlags } from './parse-command-flags.js';
import { startWebhookReceiver } from './webhook-receiver.js';

export const WEBHOOKS_USAGE = `usage: ivory webhooks receive --secret whsec_… [--port 4000] [--host 127.0.0.1]

A webhook receiver for development: listens on http://HOST:PORT/hooks,
verifies each delivery's signature with the endpoint's secret (also read
from IVORY_WEBHOOK_SECRET), and prints one line per delivery:
  verified <event type> <event id>      (answered 204)
  REJECTED <event type> <event id>      (bad signature or timestamp; answered 401)
Register http://HOST:PORT/hooks as an endpoint of a server started with
WEBHOOK_ALLOW_PRIVATE=true (plain http and loopback are refused otherwise).
Runs until interrupted (Ctrl-C).`;

export async function webhooksCommand(args: readonly string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') {
    console.log(WEBHOOKS_USAGE);
    return 0;
  }
  if (sub !== 'receive') {
    console.error(sub === undefined ? WEBHOOKS_USAGE : `ivory webhooks: unknown command "${sub}" (try: ivory webhooks --help)`);
    return 2;
  }
  const parsed = parseCommandFlags('ivory webhooks receive', WEBHOOKS_USAGE, rest, ['secret', 'port', 'host']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const secret = parsed.values.secret ?? process.env.IVORY_WEBHOOK_SECRET ?? '';
  if (!secret.startsWith('whsec_')) {
    console.error('ivory webhooks receive: --secret (or IVORY_WEBHOOK_SECRET) must be the endpoint secret, whsec_…');
    return 2;
  }
  const port = Number(parsed.values.port ?? '4000');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error('ivory webhooks receive: --port must be a port number');
    return 2;
  }
  const receiver = await startWebhookReceiver({
    host: parsed.values.host ?? '127.0.0.1',
    port,
    secret,
    onDelivery: (delivery) => console.log(`${delivery.verified ? 'verified' : 'REJECTED'} ${delivery.type} ${delivery.eventId}`),
  });
  console.error(`listening on ${receiver.url}`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await receiver.close();
  return 0;
}
