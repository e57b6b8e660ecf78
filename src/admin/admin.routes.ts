import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { LedgerPorts } from '../issuances/index.js';
import { listUnmatched, UnmatchedTransferSchema } from '../payments/index.js';
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database/database.js';
import { fieldError, IvoryError } from '../platform/errors.js';
import type { IvoryServer } from '../platform/http/server.js';
import { requireOperator } from './admin-auth.js';
import { blockMerchant } from './block-merchant.js';
import { getMerchant } from './get-merchant.js';
import { listAuditEntries } from './list-audit-entries.js';
import type { ListLiveNetworks, RescanNetwork } from './network-status.js';
import { insertAuditEntry } from './admin.repository.js';
import type { OperatorActor } from './operator.js';
import { getMerchantPayoutSetup, setMerchantPayoutSetup } from './payout-setup.js';
import { setMerchantFees } from './set-merchant-fees.js';
import { setMerchantLimits } from './set-merchant-limits.js';
import { unblockMerchant } from './unblock-merchant.js';

/** Mounted at `{root_url}/admin/v1`. */
export const ADMIN_PREFIX = '/admin/v1';

const NetworkStatusSchema = Type.Object({
  chain_id: Type.Integer(),
  name: Type.String(),
  relayer_address: Type.String(),
  relayer_balance: Type.Union([Type.String(), Type.Null()]),
  relayer_energy: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  payouts_waiting_gas: Type.Integer(),
  head_block: Type.Union([Type.Integer(), Type.Null()], {
    description: "The node's head: the latest block on EVM networks and Tron; on Solana the slot at `confirmed`. Null when the node did not answer.",
  }),
  last_scanned_block: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'How far the watcher has read. EVM networks and Tron: the last block of the whole-chain scan. Solana (read per deposit token account, not by block): the finalized slot read before the watcher\'s last complete pass, so every transfer to a watched address finalized at or before it is recorded. Null before the first scan or pass.',
  }),
  confirmations: Type.Integer(),
  rescan: Type.Optional(Type.Object({ from_block: Type.Integer(), to_block: Type.Integer(), next_block: Type.Integer() })),
});
const ChainParams = Type.Object({ chain_id: Type.String() });
const RescanBody = Type.Object({ from_block: Type.Integer({ minimum: 0 }), to_block: Type.Integer({ minimum: 0 }) }, { additionalProperties: false });
const RescanAnswer = Type.Object({ chain_id: Type.Integer(), rescan: Type.Object({ from_block: Type.Integer(), to_block: Type.Integer(), next_block: Type.Integer() }) });

const MerchantParams = Type.Object({ id: Type.String() });
// Query values arrive as text: the use case parses and refuses them with their own codes.
const UnmatchedQuery = Type.Object({ chain_id: Type.Optional(Type.String()), limit: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()) });
const OperatorUnmatchedPage = Type.Object({
  data: Type.Array(Type.Intersect([UnmatchedTransferSchema, Type.Object({ shop_id: Type.String(), merchant_id: Type.String() })])),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
const BlockBody = Type.Object({ reason: Type.String() }, { additionalProperties: false });
const LimitValue = Type.Optional(Type.Union([Type.Integer(), Type.Null()]));
const LimitsBody = Type.Object(
  {
    active_invoices: LimitValue,
    deposit_addresses: Type.Optional(Type.Object({ evm: LimitValue, tron: LimitValue, solana: LimitValue }, { additionalProperties: false })),
    team: LimitValue,
  },
  { additionalProperties: false },
);
const FeesBody = Type.Object(
  {
    overrides: Type.Array(
      Type.Object(
        {
          chain_id: Type.Integer(),
          kind: Type.Union([Type.Literal('invoice'), Type.Literal('deposit')]),
          terms: Type.Union([
            Type.Object({ bps: Type.Integer(), minimum: Type.String(), maximum: Type.String() }, { additionalProperties: false }),
            Type.Null(),
          ]),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: false },
);
const WalletAddress = Type.Optional(Type.Union([Type.String(), Type.Null()]));
const PayoutSetupBody = Type.Object(
  {
    service_wallets: Type.Optional(Type.Object({ evm: WalletAddress, solana: WalletAddress, tron: WalletAddress }, { additionalProperties: false })),
    tron_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const AuditQuery = Type.Object({ limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })), cursor: Type.Optional(Type.String({ maxLength: 200 })) });

export interface AdminRoutesDeps {
  readonly adminToken: string | undefined;
  readonly listLiveNetworks: ListLiveNetworks;
  readonly rescanNetwork: RescanNetwork;
  readonly db: Db;
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly ledger: LedgerPorts;
}

/**
 * The operator API. Authentication is its own (the operator token), not a
 * user session or key; so the routes are `auth: 'none'` for the HTTP core and
 * hidden from the public OpenAPI document. Every change is audited by its use case.
 */
export async function adminRoutes(admin: IvoryServer, deps: AdminRoutesDeps): Promise<void> {
  admin.addHook('onRequest', async (request) => requireOperator(deps.adminToken, request));
  const operator = { auth: 'none' } as const;
  const actor = (request: FastifyRequest): OperatorActor => ({ source: 'api', ip: request.ip });

  admin.get(
    '/networks',
    { config: operator, schema: { hide: true, response: { 200: Type.Array(NetworkStatusSchema) } } },
    async () => deps.listLiveNetworks(),
  );

  // Issue 22 item 5: read a scanned range again and record what was missed; audited.
  admin.post(
    '/networks/:chain_id/rescan',
    { config: operator, schema: { hide: true, params: ChainParams, body: RescanBody, response: { 202: RescanAnswer } } },
    async (request, reply) => {
      const chainId = /^[1-9]\d{0,15}$/.test(request.params.chain_id) ? Number(request.params.chain_id) : Number.NaN;
      if (Number.isNaN(chainId)) throw new IvoryError('not_found');
      const { from_block: fromBlock, to_block: toBlock } = request.body;
      const rescan = await deps.rescanNetwork({ chainId, fromBlock, toBlock }, (trx) =>
        insertAuditEntry(trx, { actor: actor(request), action: 'network.rescan', targetType: 'network', targetId: String(chainId), details: { from_block: fromBlock, to_block: toBlock }, at: deps.clock.now() }),
      );
      return reply.status(202).send({ chain_id: chainId, rescan });
    },
  );

  // Issue 22 item 5: every shop's unmatched transfers, with whose they are.
  admin.get('/unmatched-transfers', { config: operator, schema: { hide: true, querystring: UnmatchedQuery, response: { 200: OperatorUnmatchedPage } } }, async (request) => {
    const { chain_id: chainId, ...page } = request.query;
    if (chainId !== undefined && !/^[1-9]\d{0,15}$/.test(chainId)) throw fieldError('invalid_request', 'chain_id', 'must be a positive integer');
    const listed = await listUnmatched(deps.db, deps.catalogue, chainId === undefined ? {} : { chainId: Number(chainId) }, page);
    return {
      data: listed.page.data.map((view, index) => ({ ...view, shop_id: listed.records[index]?.shopId ?? '', merchant_id: listed.records[index]?.merchantId ?? '' })),
      next_cursor: listed.page.next_cursor,
    };
  });

  admin.get('/merchants/:id', { config: operator, schema: { hide: true, params: MerchantParams } }, async (request) =>
    getMerchant(deps.db, request.params.id),
  );

  admin.post(
    '/merchants/:id/block',
    { config: { ...operator, fieldErrors: { reason: 'invalid_reason' } }, schema: { hide: true, params: MerchantParams, body: BlockBody } },
    async (request) => blockMerchant(deps, { merchantId: request.params.id, reason: request.body.reason, actor: actor(request) }),
  );

  admin.post('/merchants/:id/unblock', { config: operator, schema: { hide: true, params: MerchantParams } }, async (request) =>
    unblockMerchant(deps, { merchantId: request.params.id, actor: actor(request) }),
  );

  admin.patch(
    '/merchants/:id/limits',
    {
      config: { ...operator, fieldErrors: { active_invoices: 'invalid_limits', deposit_addresses: 'invalid_limits', team: 'invalid_limits' } },
      schema: { hide: true, params: MerchantParams, body: LimitsBody },
    },
    async (request) => setMerchantLimits(deps, { merchantId: request.params.id, change: request.body, actor: actor(request) }),
  );

  admin.patch(
    '/merchants/:id/fees',
    { config: { ...operator, fieldErrors: { overrides: 'invalid_fee_terms' } }, schema: { hide: true, params: MerchantParams, body: FeesBody } },
    async (request) => setMerchantFees(deps, { merchantId: request.params.id, changes: request.body.overrides, actor: actor(request) }),
  );

  admin.get('/merchants/:id/payout-setup', { config: operator, schema: { hide: true, params: MerchantParams } }, async (request) =>
    getMerchantPayoutSetup(deps.db, request.params.id),
  );

  admin.patch(
    '/merchants/:id/payout-setup',
    { config: operator, schema: { hide: true, params: MerchantParams, body: PayoutSetupBody } },
    async (request) => setMerchantPayoutSetup(deps, { merchantId: request.params.id, change: request.body, actor: actor(request) }),
  );

  admin.get('/audit', { config: operator, schema: { hide: true, querystring: AuditQuery } }, async (request) =>
    listAuditEntries(deps.db, {
      ...(request.query.limit === undefined ? {} : { limit: Number(request.query.limit) }),
      ...(request.query.cursor === undefined ? {} : { cursor: request.query.cursor }),
    }),
  );
}
