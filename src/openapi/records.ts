import { Type, type TSchema } from 'typebox';
import { ERROR_CODES } from '../platform/errors.js';
import { SIMULATION_KINDS, type SimulationKind as SimulationKindValue } from '../sandbox/index.js';

/**
 * Documentation-only schemas of the answers whose routes declare no response
 * schema. They are not attached to the routes: a Fastify response schema
 * serializes the answer and drops fields it does not list, which would change
 * what clients receive and what idempotent replays store. The agent-journey
 * test checks real answers against them through the typed client.
 */

const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Nullable(Timestamp);
const Uuid = Type.String({ format: 'uuid' });
const BaseUnits = Type.String({ pattern: '^[0-9]+$', description: 'Integer in base units of the token.' });
const IssuanceStatus = Type.Union(['registering', 'open', 'funded', 'settled', 'reconciling'].map((status) => Type.Literal(status)));
const Kind = Type.Union([Type.Literal('invoice'), Type.Literal('deposit')]);

/** SPEC "Error envelope". */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(ERROR_CODES.map((code) => Type.Literal(code)), { description: 'Branch on the HTTP status first, then on this code.' }),
      message: Type.String({ description: 'Repeats the code.' }),
      details: Type.Optional(
        Type.Object(
          {
            field: Type.Optional(
              Type.String({
                description:
                  'Input errors: the input refused, as a JSON path into the body (`amount`, `assets[1].token`, `allowed_ips[3]`), a query parameter (`limit`), a header (`Idempotency-Key`), or `body` for the body as a whole.',
              }),
            ),
            reason: Type.Optional(Type.String({ description: 'Input errors: why it was refused, in words to act on. account_disabled: the operator\'s reason for the block.' })),
            chain_id: Type.Optional(Type.Integer({ description: 'With token: the option of a group that could not be created (nothing was).' })),
            token: Type.Optional(Type.String({ description: 'With chain_id: the option of a group that could not be created.' })),
          },
          {
            additionalProperties: true,
            description:
              'Present for some errors: {field, reason} for input errors; {reason} for account_disabled; {chain_id, token} for the failing option of a group, whatever the error.',
          },
        ),
      ),
    }),
  },
  { description: 'SPEC "Error envelope".' },
);

/** SPEC "Issuance (authenticated view)". */
export const Issuance = Type.Object({
  id: Uuid,
  kind: Kind,
  status: IssuanceStatus,
  amount: Nullable(BaseUnits),
  received: BaseUnits,
  token_decimals: Type.Integer(),
  chain_id: Type.Integer(),
  token: Type.String(),
  family: Type.String(),
  expires_at: NullableTimestamp,
  cancelled_at: NullableTimestamp,
  disabled_at: NullableTimestamp,
  payout_tx_hash: Nullable(Type.String()),
  address: Nullable(Type.String({ description: 'Null until allocated: poll until it is set.' })),
  payment_url: Type.String({ description: 'Hosted payment page; use as returned.' }),
  external_id: Nullable(Type.String()),
  public_id: Type.String(),
  shop_id: Uuid,
  group_id: Nullable(Uuid),
  created_at: Timestamp,
});

/** SPEC "Group issuance". */
export const IssuanceGroup = Type.Object({
  id: Uuid,
  group: Type.Literal(true),
  kind: Kind,
  shop_id: Uuid,
  public_id: Type.String(),
  status: IssuanceStatus,
  amount: Nullable(Type.String({ description: 'Decimal token amount, not base units.' })),
  payment_url: Type.String(),
  expires_at: NullableTimestamp,
  cancelled_at: NullableTimestamp,
  disabled_at: NullableTimestamp,
  paid_issuance_id: Nullable(Uuid),
  external_id: Nullable(Type.String()),
  created_at: Timestamp,
  options: Type.Array(
    Type.Object({
      id: Uuid,
      public_id: Type.String(),
      chain_id: Type.Integer(),
      token: Type.String(),
      token_decimals: Type.Integer(),
      family: Type.String(),
      amount: Nullable(BaseUnits),
      address: Nullable(Type.String()),
      status: IssuanceStatus,
    }),
  ),
});

export const IssuanceOrGroup = Type.Union([Issuance, IssuanceGroup]);

const Scope = Type.Union([Type.Literal('read'), Type.Literal('write')]);

/** SPEC "API key"; the token itself is shown once, at creation. */
export const ApiKey = Type.Object({
  id: Uuid,
  shop_id: Uuid,
  name: Type.String(),
  scopes: Type.Array(Scope),
  allowed_ips: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  token_prefix: Type.String(),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
});

export const CreatedApiKey = Type.Intersect([ApiKey, Type.Object({ token: Type.String({ pattern: '^ivk_', description: 'Shown once.' }) })]);

/** SPEC "Webhook endpoint"; the secret is shown once, at creation and rotation. */
export const WebhookEndpoint = Type.Object({
  id: Uuid,
  url: Type.String(),
  filters: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Nullable(Type.String()),
  disabled_at: NullableTimestamp,
  previous_secret_expires_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WebhookEndpointWithSecret = Type.Intersect([WebhookEndpoint, Type.Object({ secret: Type.String({ description: 'Shown once.' }) })]);

export const WebhookDelivery = Type.Object({
  id: Uuid,
  event_id: Uuid,
  event_type: Type.String(),
  endpoint_id: Uuid,
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempt_count: Type.Integer(),
  next_attempt_at: NullableTimestamp,
  last_attempt_at: NullableTimestamp,
  created_at: Timestamp,
  attempts: Type.Array(
    Type.Object({
      attempt_id: Uuid,
      started_at: Timestamp,
      status_code: Nullable(Type.Integer()),
      latency_ms: Type.Integer(),
      error: Nullable(Type.String()),
      response_excerpt: Nullable(Type.String()),
    }),
  ),
});

export const WebhookEvent = Type.Object({
  id: Uuid,
  type: Type.String(),
  created_at: Timestamp,
  data: Type.Object({}, { additionalProperties: true }),
  deliveries: Type.Object({ pending: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer() }),
});

const page = (item: TSchema) => Type.Object({ data: Type.Array(item), next_cursor: Nullable(Type.String()) });
export const DeliveryPage = page(WebhookDelivery);
export const EventPage = page(WebhookEvent);
/** GET issuances: each item an Issuance or an IssuanceGroup, as GET of its id answers. */
export const IssuancePage = page(IssuanceOrGroup);

/** SPEC "Merchant"; project_* are legacy aliases. */
export const Merchant = Type.Object({
  id: Uuid,
  name: Type.String(),
  role: Type.Union([Type.Literal('viewer'), Type.Literal('developer'), Type.Literal('owner')]),
  shop_limit: Type.Integer(),
  shop_count: Type.Integer(),
  project_limit: Type.Integer(),
  project_count: Type.Integer(),
});

const SessionUser = Type.Object({
  user_id: Uuid,
  onboarding_required: Type.Boolean(),
  mfa_required: Type.Boolean(),
  mfa_at: NullableTimestamp,
});

/** GET /me: a session's user and CSRF token, or an API key's principal (no csrf). */
export const Principal = Type.Union([
  Type.Object({ user: SessionUser, csrf: Type.String() }),
  Type.Object({ type: Type.Literal('api_key'), key_id: Uuid, shop_id: Uuid, merchant_id: Uuid, scopes: Type.Array(Scope) }),
]);

export const WalletChallenge = Type.Object({ challenge_id: Uuid, message: Type.String({ description: 'Sign exactly as received (EIP-191).' }) });
export const WalletSession = Type.Object({ token: Type.String(), expires_at: Timestamp, user: SessionUser });

export const OnboardingAnswer = Type.Object({ completed: Type.Literal(true) });
export const Ok = Type.Object({ ok: Type.Literal(true) });

export const Recipient = Type.Object({ address: Type.String({ description: 'Empty until set.' }) });

const simulationKind = (description: string) => Type.Unsafe<SimulationKindValue>({ type: 'string', enum: [...SIMULATION_KINDS], description });

/** The `kind` of a simulate request: SPEC "Sandbox" kinds; the route answers 400 invalid_simulation for any other. */
export const SimulationKind = simulationKind(
  'What to simulate. `gas.wait` and `sweep.failed` are internal payout signals: they change the scheduled payout only and send no webhook. Another value: 400 invalid_simulation.',
);

export const SimulationResult = Type.Object({
  kind: simulationKind('The kind simulated.'),
  issuance_id: Uuid,
  event_id: Nullable(Uuid),
  transfer_id: Nullable(Uuid),
  payout: Nullable(Type.Object({ id: Uuid, status: Type.String(), attempts: Type.Integer() })),
});

export const SandboxReset = Type.Object({ reset: Type.Literal(true), deleted_issuances: Type.Integer() });

export const RecoveryScheduled = Type.Object({ endpoint_id: Uuid, since: Timestamp, requeued: Type.Integer() });
export const Deleted = Type.Object({ id: Uuid, deleted: Type.Literal(true) });

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('developer'), Type.Literal('owner')]);

export const Invitation = Type.Object({
  id: Uuid,
  merchant_id: Uuid,
  provider: Type.Literal('email'),
  subject: Type.String({ description: 'The invited e-mail address.' }),
  role: Role,
  shop_id: Type.Union([Uuid, Type.Null()], { description: 'null: merchant-wide.' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
  created_at: Timestamp,
  expires_at: Timestamp,
});

export const Grant = Type.Object({
  id: Uuid,
  user_id: Uuid,
  email: Type.Union([Type.String(), Type.Null()]),
  role: Role,
  shop_id: Type.Union([Uuid, Type.Null()], { description: 'null: merchant-wide.' }),
  created_at: Timestamp,
});

export const Team = Type.Object({ grants: Type.Array(Grant), invitations: Type.Array(Invitation) });
export const AcceptedInvitation = Type.Object({ merchant_id: Uuid, grant: Grant });

export const ShopBranding = Type.Object({
  shop_id: Uuid,
  name: Type.String({ description: 'The displayed name: the branding name, or the shop name when none is set.' }),
  logo_url: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
});
