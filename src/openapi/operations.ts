import { Type, type TSchema } from 'typebox';
import { PublicNetworkSchema } from '../catalogue/index.js';
import * as R from './records.js';

/**
 * What the route files do not say about each operation, in one place (so that
 * modules stay free of documentation wiring): its operationId, summary and tag,
 * the success answer of routes that declare no response schema, and the names
 * of the records in its answer. Keyed by `METHOD path`, with the path as the
 * document writes it: relative to {base_url} for API routes, from the server
 * root for the others (`/healthz`, `/admin/v1/...`). Security, the
 * Idempotency-Key header and the error answers are derived from each route's
 * own config (see document.ts); a test fails when a route has no entry here.
 */
export interface OperationDoc {
  readonly id: string;
  readonly summary: string;
  readonly description?: string;
  /** The success answer, for a route whose schema declares none. */
  readonly answer?: Answer;
  /**
   * Body fields as the document states them, where the route validates them
   * more loosely on purpose: the use case refuses other values with its own
   * SPEC code, which the validator would answer as invalid_request.
   */
  readonly bodyFields?: Readonly<Record<string, TSchema>>;
  /**
   * Component names for parts of the success answer's schema, by JSON pointer
   * inside it (`''` the whole, `/items` an array's element, `/then`, `/anyOf/0`).
   */
  readonly names?: Readonly<Record<string, string>>;
}

export interface Answer {
  readonly status: number;
  readonly description: string;
  /** A JSON body; absent with `mediaType`, or for an answer without a body (a redirect). */
  readonly schema?: TSchema;
  /** A non-JSON body (image bytes, CSV). */
  readonly mediaType?: string;
}

export interface TagDoc {
  readonly name: string;
  readonly description: string;
}

const json = (status: number, description: string, schema: TSchema): Answer => ({ status, description, schema });

type Group = Readonly<Record<string, OperationDoc>>;

function tagged(tag: TagDoc, operations: Group): Record<string, OperationDoc & { readonly tag: string }> {
  return Object.fromEntries(Object.entries(operations).map(([key, operation]) => [key, { ...operation, tag: tag.name }]));
}

/** An answer whose whole schema is the component `name`. */
const named = (answer: Answer, name: string) => ({ answer, names: { '': name } });
/** A 200 answer listing `item`s, each the component `name`. */
const listOf = (description: string, item: TSchema, name: string) => ({ answer: json(200, description, Type.Array(item)), names: { '/items': name } });

const ISSUANCE_NAMES = { '/anyOf/0': 'Issuance', '/anyOf/1': 'IssuanceGroup' };
const issuanceAnswer = (status: number, description: string) => ({ answer: json(status, description, R.IssuanceOrGroup), names: ISSUANCE_NAMES });
const CHECKOUT_NAMES = { '/then': 'CheckoutGroup', '/else': 'Checkout' };

/** A JSON object the document does not describe field by field. */
const OpenObject = Type.Object({}, { additionalProperties: true });
const ShopWithId = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: true });
const THE_MERCHANT = json(200, 'The merchant.', OpenObject);
const THE_PAYOUT_SETUP = json(200, 'The payout setup.', OpenObject);

const MerchantNetwork = Type.Object({ ...PublicNetworkSchema.properties, wallet_bridge: Type.Optional(Type.Boolean()) });

export const TAGS: readonly TagDoc[] = [
  { name: 'Public', description: 'No credentials: the network catalogue, the checkout view, images, health.' },
  { name: 'Sign-in', description: 'Sessions for agents (wallet signature) and people (e-mail code, identity provider), and second factors.' },
  { name: 'Account', description: 'The signed-in principal, profile, identities and onboarding. Session only, except GET /me.' },
  { name: 'Merchants and shops', description: 'Merchants, their shops, payout recipients and fee terms.' },
  { name: 'API keys', description: 'Shop API keys (`ivk_`). Session only: a key never manages keys.' },
  { name: 'Invoices and deposits', description: 'Issuances: one-time invoices and reusable deposit addresses, single or grouped.' },
  { name: 'Webhooks', description: 'Endpoints, the event list, the delivery log, replay and recovery.' },
  { name: 'Sandbox', description: 'Simulated payment events on a sandbox shop, through the real ledger.' },
  { name: 'Payments', description: 'Payment history of a shop, as JSON pages or CSV.' },
  { name: 'Operator', description: 'The operator API under {root_url}/admin/v1: exists only when ADMIN_TOKEN is configured (404 otherwise).' },
];

const [PUBLIC, SIGN_IN, ACCOUNT, MERCHANTS, KEYS, ISSUANCES, WEBHOOKS, SANDBOX, PAYMENTS, OPERATOR] = TAGS as [
  TagDoc, TagDoc, TagDoc, TagDoc, TagDoc, TagDoc, TagDoc, TagDoc, TagDoc, TagDoc,
];

export const OPERATIONS: Readonly<Record<string, OperationDoc & { readonly tag: string }>> = {
  ...tagged(PUBLIC, {
    'GET /networks': {
      id: 'listNetworks',
      summary: 'List enabled networks and their ready tokens',
      description:
        'A token with `status: ready` can be used by sandbox shops on every network listed; live invoices and deposits also need `live: true`, which says this deployment has a node and contracts for the network (elsewhere a live shop gets `network_not_ready`).',
      names: { '/items': 'Network' },
    },
    'GET /checkout/{public_id}': { id: 'getCheckout', summary: 'Read the public view of an invoice or deposit', names: CHECKOUT_NAMES },
    'GET /assets/{id}': {
      id: 'getBrandingAsset',
      summary: 'Download a branding image',
      answer: { status: 200, description: 'The PNG bytes; immutable, cacheable.', mediaType: 'image/png' },
    },
    'GET /token-icons/{chain_id}/{token}/{hash}': {
      id: 'getTokenIcon',
      summary: 'Download a token icon by its content hash',
      answer: { status: 200, description: 'The icon bytes (usually SVG).', mediaType: 'image/svg+xml' },
    },
    'GET /healthz': {
      id: 'getHealth',
      summary: 'Health check, outside the versioned path',
      answer: json(200, 'The server is up.', Type.Object({ status: Type.Literal('ok') })),
    },
    'GET /openapi.json': { id: 'getOpenApiDocument', summary: 'This OpenAPI document', answer: json(200, 'The OpenAPI 3.1 document.', OpenObject) },
  }),
  ...tagged(SIGN_IN, {
    'POST /auth/wallet/challenge': {
      id: 'createWalletChallenge',
      summary: 'Request a message for an agent wallet to sign',
      description: 'Agents only: a request carrying an `Origin` header answers 403 `wallet_sign_in_agents_only`.',
      answer: json(200, 'A short-lived, single-use challenge.', R.WalletChallenge),
    },
    'POST /auth/wallet/verify': {
      id: 'verifyWalletChallenge',
      summary: 'Exchange a signed challenge for a session',
      answer: json(200, 'A session bearer token.', R.WalletSession),
    },
    'POST /auth/email/start': { id: 'startEmailSignIn', summary: 'Send a one-time sign-in code by e-mail' },
    'POST /auth/email/verify': { id: 'verifyEmailSignIn', summary: 'Exchange an e-mailed code for a session' },
    'GET /auth/google': { id: 'startIdentityProviderSignIn', summary: 'Redirect a browser to the identity provider' },
    'GET /auth/google/callback': { id: 'finishIdentityProviderSignIn', summary: 'The identity provider returns the browser here' },
    'POST /auth/logout': { id: 'signOut', summary: 'Revoke the current session' },
    'POST /auth/totp/enroll': { id: 'enrollTotp', summary: 'Start TOTP enrollment; returns a setup URI' },
    'POST /auth/totp/verify': { id: 'verifyTotp', summary: 'Pass the TOTP second factor, or confirm enrollment' },
    'POST /auth/recovery': { id: 'redeemRecoveryCode', summary: 'Pass the second factor with a recovery code' },
    'POST /auth/confirm': { id: 'confirmFreshSession', summary: 'Check whether the session meets the fresh-authentication window' },
    'POST /auth/passkeys/begin': { id: 'beginPasskeyCeremony', summary: 'Begin registering or verifying a passkey' },
    'POST /auth/passkeys/finish/{id}': { id: 'finishPasskeyCeremony', summary: 'Complete a passkey ceremony' },
    'PATCH /auth/passkeys/{id}': { id: 'renamePasskey', summary: 'Rename a passkey' },
    'DELETE /auth/passkeys/{id}': { id: 'removePasskey', summary: 'Remove a passkey' },
  }),
  ...tagged(ACCOUNT, {
    'GET /me': {
      id: 'getMe',
      summary: 'Describe the caller: a session user with its CSRF token, or an API key',
      answer: json(200, 'The principal.', R.Principal),
    },
    'GET /profile': { id: 'getProfile', summary: 'Read the profile', names: { '': 'Profile' } },
    'PATCH /profile': { id: 'updateProfile', summary: 'Change display name or preferences (no Idempotency-Key)', names: { '': 'Profile' } },
    'GET /profile/security': { id: 'getSecuritySummary', summary: 'Which second factors the user has', names: { '': 'SecuritySummary' } },
    'POST /profile/avatar': { id: 'setAvatar', summary: 'Upload an avatar (PNG or JPEG, base64)' },
    'GET /identities': { id: 'listIdentities', summary: 'List sign-in methods linked to the account', names: { '/items': 'Identity' } },
    'DELETE /identities/{id}': { id: 'unlinkIdentity', summary: 'Remove a sign-in method (never the last one)' },
    'POST /onboarding': {
      id: 'completeOnboarding',
      summary: 'Create the first merchant and its owner grant',
      description: '201 on first submission, 200 when repeated.',
      answer: json(201, 'Onboarding completed (200 when it already was).', R.OnboardingAnswer),
    },
  }),
  ...tagged(MERCHANTS, {
    'GET /merchants': {
      id: 'listMerchants',
      summary: 'List the merchants the caller can act for',
      ...listOf('An API key sees only its own merchant.', R.Merchant, 'Merchant'),
    },
    'POST /merchants': {
      id: 'createMerchant',
      summary: 'Always refused (403 forbidden); kept for compatibility',
      description: 'Merchants are created by POST /onboarding.',
    },
    'GET /merchants/{merchant_id}/networks': {
      id: 'listMerchantNetworks',
      summary: 'The catalogue filtered by the merchant\'s policy',
      ...listOf('Networks available to this merchant.', MerchantNetwork, 'MerchantNetwork'),
    },
    'GET /merchants/{merchant_id}/shops': { id: 'listShops', summary: 'List the merchant\'s shops', names: { '/items': 'Shop' } },
    'POST /merchants/{merchant_id}/shops': { id: 'createShop', summary: 'Create a live or sandbox shop', answer: json(201, 'The shop.', ShopWithId) },
    'GET /shops/{shop_id}': { id: 'getShop', summary: 'Read a shop', names: { '': 'Shop' } },
    'PATCH /shops/{shop_id}': {
      id: 'updateShop',
      summary: 'Change a shop\'s name, recipient, delegate or payout targets',
      answer: json(200, 'The shop.', ShopWithId),
    },
    'GET /shops/{shop_id}/terms': { id: 'getShopTerms', summary: 'Fee and sweep terms per network', names: { '/items': 'ShopTerms' } },
    'GET /shops/{shop_id}/solana-recipient': {
      id: 'getSolanaRecipient',
      summary: 'Read the Solana payout recipient',
      ...named(json(200, 'Empty until set.', R.Recipient), 'Recipient'),
    },
    'PUT /shops/{shop_id}/solana-recipient': {
      id: 'setSolanaRecipient',
      summary: 'Set the Solana payout recipient (immutable once set)',
      ...named(json(200, 'The recipient.', R.Recipient), 'Recipient'),
    },
    'GET /shops/{shop_id}/tron-recipient': {
      id: 'getTronRecipient',
      summary: 'Read the Tron payout recipient',
      ...named(json(200, 'Empty until set.', R.Recipient), 'Recipient'),
    },
    'PUT /shops/{shop_id}/tron-recipient': {
      id: 'setTronRecipient',
      summary: 'Set the Tron payout recipient (immutable once set)',
      ...named(json(200, 'The recipient.', R.Recipient), 'Recipient'),
    },
    'POST /shops/{shop_id}/archive': {
      id: 'archiveShop',
      summary: 'Archive a shop: afterwards it answers shop_archived and its API keys stop working',
      description:
        'Owner session (fresh MFA when enrolled). Refused with `shop_has_open_issuances` while an invoice can still be paid, a deposit is enabled, ' +
        'or live money received has not finished being paid out (`details` count each). Money arriving later at a cancelled invoice or paused deposit ' +
        'is still credited and paid out. Archiving an archived shop answers it unchanged.',
      names: { '': 'Shop' },
    },
    'PATCH /shops/{shop_id}/branding': {
      id: 'setShopBranding',
      summary: 'Set the displayed name and logo (never the payout recipient)',
      description: 'Body: `name` (string, or null for the shop name) and/or `logo` (a PNG or JPEG as standard base64, or null to remove it). The logo is re-encoded as PNG within 512 px.',
      ...named(json(200, 'The branding as the checkout shows it.', R.ShopBranding), 'ShopBranding'),
    },
    'POST /merchants/{merchant_id}/invites': {
      id: 'inviteTeamMember',
      summary: 'Invite someone by e-mail to the merchant or to one shop as viewer, developer or owner',
      ...named(json(201, 'The pending invitation; the invitee is e-mailed the link.', R.Invitation), 'Invitation'),
    },
    'POST /invites/{id}/accept': {
      id: 'acceptInvitation',
      summary: 'Accept an invitation addressed to the signed-in e-mail address',
      answer: json(200, 'The access granted.', R.AcceptedInvitation),
      names: { '/properties/grant': 'Grant' },
    },
    'GET /merchants/{merchant_id}/team': {
      id: 'getTeam',
      summary: 'List the merchant\'s grants and pending invitations',
      ...named(json(200, 'The team.', R.Team), 'Team'),
    },
    'DELETE /merchants/{merchant_id}/invites/{id}': {
      id: 'revokeInvitation',
      summary: 'Revoke a pending invitation',
      ...named(json(200, 'The invitation, revoked.', R.Invitation), 'Invitation'),
    },
    'DELETE /merchants/{merchant_id}/grants/{id}': {
      id: 'removeTeamAccess',
      summary: 'Remove someone\'s access (the last owner cannot be removed)',
      answer: json(200, 'Removed.', R.Ok),
    },
  }),
  ...tagged(KEYS, {
    'GET /shops/{shop_id}/keys': { id: 'listApiKeys', summary: 'List the shop\'s API keys (never their tokens)', ...listOf('The keys.', R.ApiKey, 'ApiKey') },
    'POST /shops/{shop_id}/keys': {
      id: 'createApiKey',
      summary: 'Create an API key; its `ivk_` token is returned once',
      answer: json(201, 'The key with its one-time token.', R.CreatedApiKey),
      names: { '/allOf/0': 'ApiKey' },
    },
    'PATCH /shops/{shop_id}/keys/{key_id}': {
      id: 'updateApiKey',
      summary: 'Change a key\'s name, scopes, IP allowlist or enabled flag',
      ...named(json(200, 'The key.', R.ApiKey), 'ApiKey'),
    },
    'DELETE /shops/{shop_id}/keys/{key_id}': { id: 'revokeApiKey', summary: 'Revoke a key', answer: json(200, 'Revoked.', R.Ok) },
  }),
  ...tagged(ISSUANCES, {
    'POST /shops/{shop_id}/invoices': {
      id: 'createInvoice',
      summary: 'Create an invoice (one network, or a group of options)',
      description:
        'Single option: `chain_id`, `token` and `amount` as an integer string in the token\'s base units. Group: `assets` and a decimal `amount`. ' +
        'The address is allocated asynchronously: poll GET issuance until `address` is set, then hand the payer `payment_url`.',
      ...issuanceAnswer(202, 'The issuance, or the group.'),
    },
    'POST /shops/{shop_id}/deposits': {
      id: 'createDeposit',
      summary: 'Create a reusable deposit address (no amount, never expires)',
      ...issuanceAnswer(202, 'The issuance, or the group.'),
    },
    'GET /shops/{shop_id}/issuances/{id}': {
      id: 'getIssuance',
      summary: 'Read an invoice or deposit, or a group with its options',
      ...issuanceAnswer(200, 'The issuance, or the group.'),
    },
    'GET /shops/{shop_id}/issuances': {
      id: 'listIssuances',
      summary: 'List invoices and deposits, newest first, by cursor, with filters',
      description:
        'Ordered by `created_at`, then `id`, both descending; pages follow `next_cursor` (null on the last page) and stay stable while new issuances are created. ' +
        'Each item is what GET of its id answers: an `Issuance`, or for a group an `IssuanceGroup` with all its options. ' +
        'A group appears once, as the group; its options are never listed on their own. ' +
        'Filters combine with AND. On a group, `kind`, `status`, `cancelled`, `external_id` and the creation times are the group\'s own; ' +
        '`chain_id` and `token` match a group when one of its options matches (both in the same option when both are given). ' +
        'A bad value answers 400 `invalid_request` with `details` `{field, reason}` naming the parameter (also for an unknown or repeated parameter); a malformed cursor 400 `invalid_cursor`.',
      answer: json(200, 'A page of issuances and groups.', R.IssuancePage),
      names: { '/properties/data/items/anyOf/0': 'Issuance', '/properties/data/items/anyOf/1': 'IssuanceGroup' },
    },
    'POST /shops/{shop_id}/invoices/{id}/cancel': {
      id: 'cancelInvoice',
      summary: 'Cancel an invoice: closes the checkout, refunds nothing',
      ...issuanceAnswer(200, 'The cancelled issuance, or group.'),
    },
    'PATCH /shops/{shop_id}/deposits/{id}': {
      id: 'setDepositEnabled',
      summary: 'Pause or re-enable a deposit\'s checkout',
      ...issuanceAnswer(200, 'The deposit, or group.'),
    },
  }),
  ...tagged(WEBHOOKS, {
    'POST /shops/{shop_id}/webhooks': {
      id: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint; its signing secret is returned once',
      answer: json(201, 'The endpoint with its one-time secret.', R.WebhookEndpointWithSecret),
      names: { '/allOf/0': 'WebhookEndpoint' },
    },
    'GET /shops/{shop_id}/webhooks': {
      id: 'listWebhookEndpoints',
      summary: 'List the shop\'s webhook endpoints',
      ...listOf('The endpoints.', R.WebhookEndpoint, 'WebhookEndpoint'),
    },
    'PATCH /shops/{shop_id}/webhooks/{id}': {
      id: 'updateWebhookEndpoint',
      summary: 'Change an endpoint\'s URL, filters or enabled flag',
      ...named(json(200, 'The endpoint.', R.WebhookEndpoint), 'WebhookEndpoint'),
    },
    'DELETE /shops/{shop_id}/webhooks/{id}': { id: 'deleteWebhookEndpoint', summary: 'Delete an endpoint', answer: json(200, 'Deleted.', R.Deleted) },
    'POST /shops/{shop_id}/webhooks/{id}/rotate-secret': {
      id: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret; the old one signs beside it for a while',
      answer: json(200, 'The endpoint with its new one-time secret.', R.WebhookEndpointWithSecret),
      names: { '/allOf/0': 'WebhookEndpoint' },
    },
    'POST /shops/{shop_id}/webhooks/{id}/recover': {
      id: 'recoverWebhookDeliveries',
      summary: 'Requeue the endpoint\'s failed deliveries since a time',
      answer: json(202, 'What was requeued.', R.RecoveryScheduled),
    },
    'GET /shops/{shop_id}/deliveries': {
      id: 'listWebhookDeliveries',
      summary: 'The delivery log, newest first, by cursor',
      answer: json(200, 'A page of deliveries.', R.DeliveryPage),
      names: { '/properties/data/items': 'WebhookDelivery' },
    },
    'POST /shops/{shop_id}/deliveries/{id}/replay': {
      id: 'replayWebhookDelivery',
      summary: 'Resend a delivery\'s original bytes under the same event id',
      ...named(json(202, 'The delivery, queued again.', R.WebhookDelivery), 'WebhookDelivery'),
    },
    'GET /shops/{shop_id}/events': {
      id: 'listEvents',
      summary: 'The shop\'s events, newest first, by cursor',
      answer: json(200, 'A page of events.', R.EventPage),
      names: { '/properties/data/items': 'WebhookEvent' },
    },
  }),
  ...tagged(SANDBOX, {
    'POST /shops/{shop_id}/sandbox/simulate': {
      id: 'simulateSandboxEvent',
      summary: 'Simulate a transfer, a reversal, an invoice closing or a payout signal',
      description: 'Each new simulated event needs a new Idempotency-Key. `amount` is a base-unit string (`0` for invoice.closed).',
      bodyFields: { kind: R.SimulationKind },
      ...named(json(200, 'What was recorded.', R.SimulationResult), 'SimulationResult'),
    },
    'POST /shops/{shop_id}/sandbox/reset': {
      id: 'resetSandbox',
      summary: 'Delete the sandbox shop\'s payment history',
      answer: json(200, 'What was deleted.', R.SandboxReset),
    },
  }),
  ...tagged(PAYMENTS, {
    'GET /shops/{shop_id}/payments': {
      id: 'listPayments',
      summary: 'Payment history, newest first, by cursor',
      names: { '/properties/data/items': 'Payment' },
    },
    'GET /shops/{shop_id}/unmatched-transfers': {
      id: 'listUnmatchedTransfers',
      summary: 'Transfers to the shop\'s addresses that no issuance can take, newest first, by cursor',
      names: { '/properties/data/items': 'UnmatchedTransfer' },
    },
    'GET /shops/{shop_id}/export.csv': {
      id: 'exportPayments',
      summary: 'Payment history as CSV, for accounting',
      answer: { status: 200, description: 'CSV, one payment a line.', mediaType: 'text/csv' },
    },
  }),
  ...tagged(OPERATOR, {
    'GET /admin/v1/networks': {
      id: 'adminListNetworks',
      summary: 'Live networks: relayer balance, scan progress, payouts waiting for gas',
      names: { '/items': 'NetworkStatus' },
    },
    'POST /admin/v1/networks/{chain_id}/rescan': {
      id: 'adminRescanNetwork',
      summary: 'Read scanned blocks again and credit what was missed (idempotent); shown on the network while it runs',
    },
    'GET /admin/v1/unmatched-transfers': {
      id: 'adminListUnmatchedTransfers',
      summary: 'Every shop\'s unmatched transfers, with shop and merchant, newest first, by cursor',
    },
    'GET /admin/v1/merchants/{id}': { id: 'adminGetMerchant', summary: 'Read a merchant with its standing, limits and fees', answer: THE_MERCHANT },
    'POST /admin/v1/merchants/{id}/block': {
      id: 'adminBlockMerchant',
      summary: 'Block a merchant: cancels unpaid invoices, disables deposits and keys',
      answer: THE_MERCHANT,
    },
    'POST /admin/v1/merchants/{id}/unblock': { id: 'adminUnblockMerchant', summary: 'Unblock a merchant', answer: THE_MERCHANT },
    'PATCH /admin/v1/merchants/{id}/limits': {
      id: 'adminSetMerchantLimits',
      summary: 'Override a merchant\'s invoice, deposit-address and team limits',
      answer: THE_MERCHANT,
    },
    'PATCH /admin/v1/merchants/{id}/fees': {
      id: 'adminSetMerchantFees',
      summary: 'Override a merchant\'s fee terms per network and kind',
      answer: THE_MERCHANT,
    },
    'GET /admin/v1/merchants/{id}/payout-setup': {
      id: 'adminGetPayoutSetup',
      summary: 'Read a merchant\'s service wallets (one address per network family) and its Tron switch',
      answer: THE_PAYOUT_SETUP,
    },
    'PATCH /admin/v1/merchants/{id}/payout-setup': {
      id: 'adminSetPayoutSetup',
      summary: 'Set or remove a merchant\'s service wallets and switch Tron on or off',
      answer: THE_PAYOUT_SETUP,
    },
    'GET /admin/v1/audit': {
      id: 'adminListAuditEntries',
      summary: 'The operator audit log, newest first, by cursor',
      answer: json(200, 'A page of audit entries.', OpenObject),
    },
  }),
};
