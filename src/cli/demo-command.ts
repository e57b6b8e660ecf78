import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { familyRules, isChainFamily, type ChainFamily } from '../chains/index.js';
import { parseCommandFlags } from './parse-command-flags.js';
import { startWebhookReceiver, type ReceivedWebhook } from './webhook-receiver.js';

export const DEMO_USAGE = `usage: ivory demo [--api-url URL]

Runs the sandbox loop against a running Ivory and prints every request and
answer: signs in with a fresh EVM wallet (agent sign-in), onboards a
merchant, creates a sandbox shop and an API key, starts a webhook receiver
on 127.0.0.1 and registers it, creates an invoice, waits for its address,
simulates the payment and the closing, and waits for both webhooks,
checking their signatures. No chain and no money are involved.
  --api-url URL   the server's {base_url} (default http://localhost:$PORT/api/v1,
                  PORT defaulting to 8080)
Start the server with WEBHOOK_ALLOW_PRIVATE=true to see the webhooks (a
local receiver is refused otherwise; the demo then goes on without them).`;

/** A failed step: its request and the answer that stopped the demo. */
class DemoStopped extends Error {}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export async function demoCommand(args: readonly string[]): Promise<number> {
  const parsed = parseCommandFlags('ivory demo', DEMO_USAGE, args, ['api-url']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const base = (parsed.values['api-url'] ?? `http://localhost:${process.env.PORT ?? '8080'}/api/v1`).replace(/\/+$/, '');
  try {
    await runDemo(base);
    return 0;
  } catch (error) {
    if (error instanceof DemoStopped) {
      console.error(`\nivory demo: ${error.message}`);
      return 1;
    }
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code === 'ECONNREFUSED') {
      console.error(`\nivory demo: nothing answers at ${base}; start the server first (WEBHOOK_ALLOW_PRIVATE=true npm start)`);
      return 1;
    }
    throw error;
  }
}

async function runDemo(base: string): Promise<void> {
  const client = new DemoClient(base);
  step('The network catalogue (public)');
  const networks = (await client.call('GET', '/networks', { expect: [200], summary: true })).body as unknown as CatalogueNetwork[];
  for (const network of networks) {
    console.log(`  ${network.chain_id} ${network.name}: ${network.tokens.map((token) => `${token.symbol} (${token.decimals} decimals)`).join(', ')}`);
  }
  const pick = pickSandboxToken(networks);

  step('Sign in as an agent with a fresh EVM wallet (EIP-191 signature of the challenge)');
  const wallet = privateKeyToAccount(generatePrivateKey());
  const challenge = await client.call('POST', '/auth/wallet/challenge', { body: { address: wallet.address, chain_id: pick.walletChainId }, expect: [200] });
  const signature = await wallet.signMessage({ message: String(challenge.body.message) });
  const session = await client.call('POST', '/auth/wallet/verify', { body: { challenge_id: challenge.body.challenge_id, signature }, expect: [200] });
  client.token = String(session.body.token);

  step('Onboard: the first merchant of this account');
  await client.call('POST', '/onboarding', { body: { name: 'Demo merchant', email: `demo-${wallet.address.slice(2, 10).toLowerCase()}@example.com` }, idempotent: true, expect: [200, 201] });
  const merchants = await client.call('GET', '/merchants', { expect: [200] });
  const merchantId = String((merchants.body as unknown as { id: string }[])[0]?.id);

  step('A sandbox shop and an API key for it (the key is shown once)');
  const shop = await client.call('POST', `/merchants/${merchantId}/shops`, { body: { name: 'Demo sandbox shop', sandbox: true }, idempotent: true, expect: [201] });
  const shopId = String(shop.body.id);
  const key = await client.call('POST', `/shops/${shopId}/keys`, { body: { name: 'demo', scopes: ['read', 'write'] }, idempotent: true, expect: [201] });
  client.token = String(key.body.token);

  step('A webhook receiver on this machine, registered with the shop');
  const deliveries: ReceivedWebhook[] = [];
  const receiver = await registerReceiver(client, shopId, deliveries);
  try {
    step(`An invoice of 25 ${pick.symbol} on ${pick.networkName} (amount in base units: 25 × 10^${pick.decimals})`);
    const amount = (25n * 10n ** BigInt(pick.decimals)).toString();
    const invoice = await client.call('POST', `/shops/${shopId}/invoices`, {
      body: { chain_id: pick.chainId, token: pick.token, amount, external_id: 'demo-order-1', expires_in: '1d' },
      idempotent: true,
      expect: [202],
    });
    const invoiceId = String(invoice.body.id);

    step('Wait for the address (the issuance is `registering` until then)');
    const open = await poll(() => client.call('GET', `/shops/${shopId}/issuances/${invoiceId}`, { expect: [200], quiet: true }), (answer) => Boolean(answer.body.address));
    client.show(open);
    console.log(`\n  The payer would now open ${String(open.body.payment_url)}`);

    step('Simulate the payment: a confirmed transfer of the full amount');
    await client.call('POST', `/shops/${shopId}/sandbox/simulate`, { body: { issuance_id: invoiceId, kind: 'transfer.confirmed', amount }, idempotent: true, expect: [200, 201, 202] });
    await client.call('GET', `/shops/${shopId}/issuances/${invoiceId}`, { expect: [200] });

    step('Simulate the invoice closing on chain');
    await client.call('POST', `/shops/${shopId}/sandbox/simulate`, { body: { issuance_id: invoiceId, kind: 'invoice.closed', amount: '0' }, idempotent: true, expect: [200, 201, 202] });
    const settled = await client.call('GET', `/shops/${shopId}/issuances/${invoiceId}`, { expect: [200] });
    if (settled.body.status !== 'settled') throw new DemoStopped(`the invoice is ${String(settled.body.status)}, not settled`);

    if (receiver !== undefined) {
      step('The webhooks, as the receiver got them');
      const wanted = ['transfer.confirmed', 'invoice.closed'];
      await poll(async () => deliveries, (got) => wanted.every((type) => got.some((delivery) => delivery.verified && delivery.type === type)), 60_000);
      for (const delivery of deliveries) console.log(`  ${delivery.verified ? 'verified' : 'REJECTED'} ${delivery.type} ${delivery.eventId}`);
    }
  } finally {
    await receiver?.close();
  }
  console.log(`\nDone: a sandbox invoice went from creation to settled${receiver === undefined ? '' : ', and its webhooks arrived signed'}.`);
  console.log(`Go on with curl:  B=${base} SHOP=${shopId} KEY=${client.token}`);
}

async function registerReceiver(client: DemoClient, shopId: string, deliveries: ReceivedWebhook[]) {
  const secretHolder: { secret: string } = { secret: '' };
  // The secret is known only once the endpoint exists; deliveries start after the invoice, later.
  const receiver = await startWebhookReceiver({
    host: '127.0.0.1',
    port: 0,
    get secret() {
      return secretHolder.secret;
    },
    onDelivery: (delivery) => deliveries.push(delivery),
  });
  const endpoint = await client.call('POST', `/shops/${shopId}/webhooks`, {
    body: { url: receiver.url, filters: ['transfer', 'invoice', 'payout'] },
    idempotent: true,
    expect: [201, 400],
  });
  if (endpoint.status !== 201) {
    await receiver.close();
    console.log('\n  The server refuses a webhook on this machine: restart it with WEBHOOK_ALLOW_PRIVATE=true to see them. Going on without webhooks.');
    return undefined;
  }
  secretHolder.secret = String(endpoint.body.secret);
  return receiver;
}

/** What an older server that lists no `family` meant: it served EVM only. */
const DEFAULT_FAMILY: ChainFamily = 'evm';

interface CatalogueNetwork {
  readonly chain_id: number;
  readonly name: string;
  readonly family?: string;
  readonly minimum_payment: string;
  readonly tokens: readonly { readonly address: string; readonly symbol: string; readonly decimals: number; readonly status?: string }[];
}

/**
 * The first ready token whose minimum allows a 25-token invoice, on a network
 * the demo's wallet signs in on (EVM) and a sandbox shop may use; a network
 * without a family is an older server's, which knew EVM only.
 */
function pickSandboxToken(networks: readonly CatalogueNetwork[]) {
  const usable = networks.filter((network) => {
    const family = network.family ?? DEFAULT_FAMILY;
    return isChainFamily(family) && familyRules(family).walletSignIn && familyRules(family).sandboxRefusal === undefined;
  });
  for (const network of usable) {
    if (Number(network.minimum_payment) > 25) continue;
    const token = network.tokens.find((candidate) => candidate.status === 'ready');
    if (token === undefined) continue;
    return {
      chainId: network.chain_id,
      networkName: network.name,
      token: token.address,
      symbol: token.symbol,
      decimals: token.decimals,
      walletChainId: network.chain_id,
    };
  }
  throw new DemoStopped('the catalogue lists no EVM network with a ready token');
}

class DemoClient {
  token: string | undefined;
  readonly #base: string;

  constructor(base: string) {
    this.#base = base;
  }

  async call(
    method: 'GET' | 'POST',
    path: string,
    options: {
      readonly body?: object;
      readonly idempotent?: boolean;
      readonly expect: readonly number[];
      /** Nothing printed. */
      readonly quiet?: boolean;
      /** The request and the status printed; the caller summarises the answer. */
      readonly summary?: boolean;
    },
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.idempotent === true) headers['idempotency-key'] = randomUUID();
    if (options.quiet !== true) {
      const shown = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
      console.log(`\n→ ${method} ${this.#base}${path}${shown.length === 0 ? '' : `\n  ${shown.join('\n  ')}`}`);
      if (options.body !== undefined) console.log(indent(JSON.stringify(options.body, null, 2)));
    }
    const response = await fetch(`${this.#base}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) });
    const text = await response.text();
    let body: Record<string, unknown>;
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      body = { text };
    }
    const answer = { status: response.status, body };
    if (options.summary === true) console.log(`← ${answer.status}`);
    else if (options.quiet !== true) this.show(answer);
    if (!options.expect.includes(response.status)) throw new DemoStopped(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return answer;
  }

  show(answer: Answer): void {
    console.log(`← ${answer.status}\n${indent(JSON.stringify(answer.body, null, 2))}`);
  }
}

function step(title: string): void {
  console.log(`\n== ${title}`);
}

function indent(text: string): string {
  return text.replace(/^/gm, '  ');
}

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new DemoStopped(`gave up waiting after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
