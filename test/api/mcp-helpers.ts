import { Client } from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';

/** The SDK's own client, named as an agent's host would be. */
export function mcpClient(): Client {
  return new Client({ name: 'ivory-test-host', version: '1.0.0' });
}

/** The text of a tool's answer (a sentence, then JSON). */
export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** The JSON part of a tool's answer. */
export function dataOf<T = Record<string, unknown>>(result: CallToolResult): T {
  return (result.structuredContent as { result: T }).result;
}

export const READ_TOOLS = ['get_issuance', 'get_terms', 'list_deliveries', 'list_events', 'list_issuances', 'list_networks', 'list_payments'];
export const WRITE_TOOLS = [
  'cancel_invoice',
  'create_deposit',
  'create_invoice',
  'create_multi_option_invoice',
  'register_webhook',
  'replay_delivery',
  'set_deposit_enabled',
  'simulate_close',
  'simulate_payment',
  'simulate_revert',
];

/**
 * An agent's journey on a sandbox shop (issue 26 item 3): networks → create
 * invoice → (address) → simulate payment → status → payments. `settle` runs
 * the server's background jobs (address allocation) between steps.
 */
export async function agentJourney(client: Client, settle: () => Promise<void>) {
  const networks = await client.callTool({ name: 'list_networks', arguments: {} });
  const base = dataOf<{ network: string; tokens: { symbol: string }[] }[]>(networks).find((network) => network.network === 'Base');
  if (base === undefined) throw new Error('Base is not listed');

  const created = await client.callTool({ name: 'create_invoice', arguments: { amount: '25.5', token: 'usdc', network: 'base', external_id: 'order-1' } });
  const invoice = dataOf<{ id: string; amount: string; token: string; network: string; status: string }>(created);
  const again = await client.callTool({ name: 'create_invoice', arguments: { amount: '25.5', token: 'usdc', network: 'base', external_id: 'order-1' } });

  await settle();
  const open = await client.callTool({ name: 'get_issuance', arguments: { id: invoice.id } });
  const paid = await client.callTool({ name: 'simulate_payment', arguments: { issuance_id: invoice.id } });
  const funded = await client.callTool({ name: 'get_issuance', arguments: { id: invoice.id } });
  const payments = await client.callTool({ name: 'list_payments', arguments: {} });
  return { created, invoice, again, open, paid, funded, payments };
}
