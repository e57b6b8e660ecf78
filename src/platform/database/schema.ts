import type { ColumnType, Generated } from 'kysely';
/** Table types of modules that keep their own (`chains/evm`) describe columns with it. */
export type { ColumnType } from 'kysely';

/**
 * The Kysely view of every table. Each module owns its tables (and their
 * migrations); this file only gathers their types so one `Kysely<Database>`
 * serves all. Conventions: timestamps are `Date`; money (`numeric(78,0)`) and
 * int8 arrive as decimal strings and are turned into bigint by repositories;
 * jsonb columns are written as JSON text (`JSON.stringify`) and read parsed.
 */
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb: read as the parsed value, written as JSON text. */
export type Json<T> = ColumnType<T, string, string>;
/** numeric(78,0) and int8: read as a decimal string, written as string. */
export type Numeric = ColumnType<string, string | bigint, string | bigint>;
/** A `numeric(78,0)` that may be null (an amount that does not apply). */
export type NullableNumeric = ColumnType<string | null, string | bigint | null, string | bigint | null>;
/** A `numeric(78,0)` with a default of 0 at insert (a running balance). */
export type Balance = ColumnType<string, string | bigint | undefined, string | bigint>;
/** A timestamp set at insert by default and moved on update. */
export type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface UsersTable {
  id: string;
  display_name: Generated<string>;
  onboarded_at: NullableTimestamp;
  blocked_at: NullableTimestamp;
  blocked_reason: string | null;
  created_at: CreatedAt;
  // SPEC "Profile" preferences (migrations/202611230050_email_sign_in.sql).
  theme: Generated<Theme>;
  language: Generated<Language>;
  /** bytea, the normalised avatar PNG or null (migrations/202611230090_sessions_cookies_avatar.sql). */
  avatar_png: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
}

export type Theme = 'dark' | 'light' | 'system';
export type Language = 'en' | 'ru';

export interface IdentitiesTable {
  id: string;
  user_id: string;
  provider: 'wallet' | 'email' | 'google';
  subject: string;
  label: string;
  created_at: CreatedAt;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  csrf_token: string;
  method: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  mfa_at: NullableTimestamp;
  // Wrong second-factor codes in this session (migrations/202611230060_totp.sql).
  mfa_failures: Generated<number>;
}

/** TOTP and recovery codes (migrations/202611230060_totp.sql). */
export interface TotpFactorsTable {
  user_id: string;
  secret_sealed: string | null;
  confirmed_at: NullableTimestamp;
  pending_secret_sealed: string | null;
  pending_created_at: NullableTimestamp;
  last_used_step: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface RecoveryCodesTable {
  id: string;
  user_id: string;
  code_digest: string;
  created_at: CreatedAt;
  used_at: NullableTimestamp;
}

/** Passkeys (migrations/202611230070_passkeys.sql). */
export interface PasskeysTable {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: ColumnType<string, string, string>;
  transports: Generated<string>;
  name: string;
  created_at: CreatedAt;
  last_used_at: NullableTimestamp;
}

export interface PasskeyChallengesTable {
  id: string;
  session_id: string;
  user_id: string;
  purpose: 'register' | 'authenticate';
  challenge: string;
  name: string | null;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

export interface WalletChallengesTable {
  id: string;
  address: string;
  chain_id: number;
  nonce: string;
  message: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
  consumed_at: NullableTimestamp;
}

export interface MerchantsTable {
  id: string;
  name: string;
  shop_limit: Generated<number>;
  active_invoice_limit: number | null;
  deposit_address_limits: ColumnType<Record<string, number> | null, string | null, string | null>;
  team_limit: number | null;
  tron_enabled: Generated<boolean>;
  blocked_at: NullableTimestamp;
  blocked_reason: string | null;
  created_at: CreatedAt;
  /** Moved by a trigger on every update (migration 202611260020): the checkout answer cache's validator. */
  view_stamp: Generated<string>;
}

export type Role = 'viewer' | 'developer' | 'owner';

export interface GrantsTable {
  id: string;
  merchant_id: string;
  user_id: string;
  role: Role;
  shop_id: string | null;
  created_at: CreatedAt;
}

export type PayoutTarget = 'address' | 'wallet';

export interface ShopsTable {
  id: string;
  merchant_id: string;
  name: string;
  sandbox: boolean;
  recipient: string | null;
  delegate: string | null;
  payout_target: Generated<PayoutTarget>;
  solana_recipient: string | null;
  tron_recipient: string | null;
  solana_payout_target: Generated<PayoutTarget>;
  tron_payout_target: Generated<PayoutTarget>;
  branding_name: string | null;
  branding_logo_asset_id: string | null;
  archived_at: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Moved by a trigger on every update (migration 202611260020): the checkout answer cache's validator. */
  view_stamp: Generated<string>;
}

export type Scope = 'read' | 'write';

export interface ApiKeysTable {
  id: string;
  shop_id: string;
  merchant_id: string;
  name: string;
  token_hash: string;
  token_prefix: string;
  scopes: Json<Scope[]>;
  allowed_ips: Json<string[]>;
  enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

export interface IdempotencyRecordsTable {
  scope: string;
  key: string;
  request_hash: string;
  response_status: number;
  /** Rows stored before migrations/202611240040 only; newer rows hold `null` here and use response_bytes. */
  response_body: Json<unknown>;
  /** bytea: the exact answer body that was sent (sealed when response_sealed); a Buffer from pg, a Uint8Array from PGlite. */
  response_bytes: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  response_content_type: ColumnType<string | null, string | null | undefined, string | null>;
  response_sealed: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
}

export interface PlatformTables {
  users: UsersTable;
  identities: IdentitiesTable;
  sessions: SessionsTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
  wallet_challenges: WalletChallengesTable;
  merchants: MerchantsTable;
  grants: GrantsTable;
  shops: ShopsTable;
  api_keys: ApiKeysTable;
  idempotency_records: IdempotencyRecordsTable;
}

// ── events (outbox) and webhooks ────────────────────────────────────────────
export interface EventsTable {
  id: string;
  sequence: Generated<string>;
  shop_id: string;
  type: string;
  issuance_id: string | null;
  issuance_sequence: number | null;
  envelope: string;
  created_at: Timestamp;
}

export interface WebhookEndpointsTable {
  id: string;
  shop_id: string;
  url: string;
  filters: Json<string[]>;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: NullableTimestamp;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  disabled_at: NullableTimestamp;
  failing_since: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  deleted_at: NullableTimestamp;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  shop_id: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  last_attempt_at: NullableTimestamp;
  created_at: Timestamp;
  // Added by migrations/202611220030_webhook_attempts.sql (webhooks module).
  lease_token: string | null;
  round_started_at: Generated<number>;
}

// ── webhooks: delivery attempts (migrations/202611220030_webhook_attempts.sql)
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  shop_id: string;
  started_at: Timestamp;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface WebhookTables {
  webhook_attempts: WebhookAttemptsTable;
}

export interface EventTables {
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

// ── merchants: branding assets ─────────────────────────────────────────────
export interface BrandingAssetsTable {
  id: string;
  shop_id: string;
  content_type: string;
  /** bytea: a Buffer from pg, a plain Uint8Array from PGlite. */
  bytes: Uint8Array;
  sha256: string;
  created_at: CreatedAt;
}

export interface MerchantServiceWalletsTable {
  merchant_id: string;
  family: 'evm' | 'solana' | 'tron';
  address: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface MerchantTables {
  branding_assets: BrandingAssetsTable;
  merchant_service_wallets: MerchantServiceWalletsTable;
}

// ── issuances, groups, transfers, payouts (module issuances) ───────────────
export type IssuanceKind = 'invoice' | 'deposit';
export type IssuanceStatus = 'registering' | 'open' | 'funded' | 'settled' | 'reconciling';
export type CancelReason = 'expired' | 'merchant_blocked';
export type TransferStatus = 'observed' | 'confirmed' | 'reverted';
export type TransferDisposition = 'credited' | 'overpayment' | 'late' | 'duplicate';
export type PayoutStatus =
  | 'scheduled'
  | 'waiting_gas'
  | 'sending'
  | 'sent'
  | 'confirmed'
  | 'failed'
  | 'cancelled'
  | 'reverted';

/** The columns an issuance and a group share, with the same meaning (SPEC "Checkout", "Checkout group"). */
interface IssuanceCommonColumns {
  id: string;
  public_id: string;
  shop_id: string;
  merchant_id: string;
  kind: IssuanceKind;
  sandbox: boolean;
  external_id: string | null;
  description: string | null;
  return_url: string | null;
  expires_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  cancel_reason: CancelReason | null;
  disabled_at: NullableTimestamp;
  created_at: Timestamp;
  /** Moved by a trigger on every update (migration 202611260020): the checkout answer cache's validator. */
  view_stamp: Generated<string>;
}

export interface IssuanceGroupsTable extends IssuanceCommonColumns {
  /** Decimal token amount string; null for deposit groups. */
  amount: string | null;
  paid_issuance_id: string | null;
}

export interface IssuancesTable extends IssuanceCommonColumns {
  group_id: string | null;
  group_position: number | null;
  chain_id: number;
  family: 'evm' | 'tron' | 'solana';
  token: string;
  token_decimals: number;
  amount: NullableNumeric;
  received: Balance;
  credited: Balance;
  unswept: Balance;
  status: IssuanceStatus;
  address: string | null;
  allocation_attempts: Generated<number>;
  next_allocation_at: NullableTimestamp;
  recipient: string | null;
  delegate: string | null;
  payout_target: PayoutTarget;
  fee_bps: number;
  fee_minimum: Numeric;
  fee_maximum: Numeric;
  sweep_threshold: NullableNumeric;
  funded_at: NullableTimestamp;
  settled_at: NullableTimestamp;
  updated_at: Timestamp;
}

/** What a row of the ledger (a transfer, a payout) carries of its issuance: whose it is and where it is paid. */
export interface IssuanceEntryColumns {
  issuance_id: string;
  shop_id: string;
  sandbox: boolean;
  chain_id: number;
  token: string;
}

export interface TransfersTable extends IssuanceEntryColumns {
  id: string;
  tx_hash: string;
  log_index: number;
  from_address: string | null;
  to_address: string | null;
  amount: Numeric;
  status: TransferStatus;
  disposition: TransferDisposition | null;
  payout_id: string | null;
  confirmed_event_id: string | null;
  observed_at: NullableTimestamp;
  confirmed_at: NullableTimestamp;
  reverted_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface PayoutsTable extends IssuanceEntryColumns {
  id: string;
  token_decimals: number;
  status: PayoutStatus;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  last_error: string | null;
  gross: Numeric;
  fee: Numeric;
  to_recipient: Numeric;
  to_operator: Numeric;
  recipient: string | null;
  fee_bps: number;
  fee_minimum: Numeric;
  fee_maximum: Numeric;
  tx_hash: string | null;
  sent_at: NullableTimestamp;
  confirmed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The payout.confirmed event (migration 202611220040), referenced by payout.reverted. */
  confirmed_event_id: string | null;
}

/** Open invoices per merchant, mode and connection slot, kept by triggers (migrations/202611260030_open_invoice_tallies.sql). */
export interface OpenInvoiceTalliesTable {
  merchant_id: string;
  sandbox: boolean;
  slot: number;
  open: number;
}

export interface IssuanceTables {
  issuance_groups: IssuanceGroupsTable;
  open_invoice_tallies: OpenInvoiceTalliesTable;
  issuances: IssuancesTable;
  transfers: TransfersTable;
  payouts: PayoutsTable;
}
// ── end issuances ───────────────────────────────────────────────────────────

// ── e-mail sign-in and the mail outbox (migrations/202611230050_email_sign_in.sql)
export interface EmailChallengesTable {
  id: string;
  subject: string;
  address: string;
  code_digest: string;
  attempts: Generated<number>;
  created_at: Timestamp;
  expires_at: Timestamp;
  consumed_at: NullableTimestamp;
}

export type MailStatus = 'pending' | 'sent' | 'failed';

export interface MailOutboxTable {
  id: string;
  recipient: string;
  subject: string;
  body_sealed: string | null;
  status: Generated<MailStatus>;
  attempts: Generated<number>;
  next_attempt_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: NullableTimestamp;
}

// Identity-provider sign-in in flight (migrations/202611230080_oidc.sql).
export interface OidcStatesTable {
  id: string;
  state_digest: string;
  nonce: string;
  code_verifier_sealed: string;
  return_to: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SignInTables {
  email_challenges: EmailChallengesTable;
  mail_outbox: MailOutboxTable;
  oidc_states: OidcStatesTable;
}

// ── admin: merchant fee terms (202611230040) and the audit log (202611230041)
export interface MerchantFeeTermsTable {
  merchant_id: string;
  chain_id: number;
  kind: 'invoice' | 'deposit';
  bps: number;
  minimum: Numeric;
  maximum: Numeric;
  updated_at: Timestamp;
}

export interface AdminAuditEntriesTable {
  id: string;
  sequence: Generated<string>;
  actor: string;
  source: 'api' | 'cli';
  actor_ip: string | null;
  action: string;
  target_type: string;
  target_id: string;
  details: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export interface AdminTables {
  merchant_fee_terms: MerchantFeeTermsTable;
  admin_audit_entries: AdminAuditEntriesTable;
}

// Team invitations (migrations/202611240010_team_invitations.sql).
export interface InvitationsTable {
  id: string;
  merchant_id: string;
  provider: 'email';
  subject: string;
  address: string;
  role: Role;
  shop_id: string | null;
  invited_by: string | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: NullableTimestamp;
  accepted_by: string | null;
  revoked_at: NullableTimestamp;
}

export interface TeamTables {
  invitations: InvitationsTable;
}

// Modules add their table interfaces above and join them here.
export interface Database extends PlatformTables, EventTables, MerchantTables, IssuanceTables, WebhookTables, SignInTables, AdminTables, TeamTables {}
