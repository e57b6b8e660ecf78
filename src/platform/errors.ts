/**
 * The one catalogue of error codes Ivory answers with. Domain code raises an
 * `IvoryError` by code and never mentions HTTP; the HTTP core maps each code to
 * its status through `statusOf`, the single code→status table.
 *
 * Codes and statuses follow SPEC "Errors". Where SPEC leaves a status unshown
 * ("-"), the choice is ours and noted beside the code.
 */
const STATUS_BY_CODE = {
  // SPEC "Errors", statuses as given.
  unauthorized: 401,
  mfa_required: 403,
  forbidden: 403,
  wallet_sign_in_agents_only: 403,
  account_disabled: 403,
  not_found: 404, // 400 on checkout and identity delete: those routes say so (`notFoundStatus`, platform/http/server.ts)
  internal_error: 500,
  idempotency_key_required: 400,
  idempotency_conflict: 409,
  json_content_type_required: 400,
  invalid_json: 400,
  invalid_profile: 400,
  image_too_large: 400,
  invalid_image: 400,
  last_login_method: 400,
  invalid_name: 400,
  email_required: 400,
  invalid_email: 400,
  disposable_email: 400,
  identity_already_linked: 400,
  amount_below_minimum: 400,
  invalid_expires_in: 400,
  invalid_assets: 400,
  issuance_in_group: 400,
  wallet_not_ready: 400,
  solana_setup_required: 400,
  tron_setup_required: 400,
  solana_sandbox_unavailable: 400,
  solana_bridge_unavailable: 400,
  tron_bridge_unavailable: 400,
  shop_addresses_immutable: 400,
  invoice_amount_limit: 400,
  sandbox_amount_limit: 400,
  active_invoice_limit_reached: 400,
  deposit_address_limit_reached: 400,
  api_key_limit_reached: 400,
  too_many_allowed_ips: 400,
  webhook_limit_reached: 400,
  team_limit_reached: 400,
  rate_limited: 429,

  // SPEC lists these with status "-"; ours:
  onboarding_required: 403, // the principal is known but may not act yet
  unsupported_network: 400,
  unsupported_asset: 400,
  network_not_ready: 400,
  asset_not_ready: 400,
  fee_exceeds_amount: 400,
  shop_archived: 400,
  shop_not_found: 404,
  invalid_solana_address: 400,
  invalid_tron_address: 400,
  invalid_tron_checksum: 400,
  invalid_tron_recipient: 400,
  solana_recipient_token_account_required: 400,
  merchant_network_disabled: 400,

  // Not in SPEC; needed for inputs SPEC names without naming their error.
  payload_too_large: 413,
  invalid_request: 400, // a field of the wrong type or shape where no narrower code exists
  invalid_amount: 400, // amount not an integer string in base units (or decimal, for groups)
  invalid_recipient: 400, // EVM recipient or delegate malformed or with a bad checksum
  invalid_scopes: 400,
  invalid_allowed_ips: 400,
  invalid_webhook_url: 400,
  invalid_filters: 400,
  invalid_chain_id: 400,
  invalid_address: 400,
  sandbox_shop_limit_reached: 400, // SPEC "Limits": one sandbox shop per merchant
  shop_limit_reached: 400, // merchants.shop_limit (SPEC "Merchant" shop_limit) reached at shop creation
  shop_has_open_issuances: 400, // archiving a shop that can still be paid or still owes a payout (decision 0038; details count what)
  invalid_simulation: 400,
  invalid_cursor: 400,
  invalid_state: 400, // the operation does not apply in the resource's current state
  invalid_reason: 400, // operator API: a block reason empty or over 500 characters
  invalid_limits: 400, // operator API: a limit override not a whole number in range
  invalid_fee_terms: 400, // operator API: fee terms the catalogue would refuse (details name the network, kind and field)
  invalid_code: 400, // a TOTP code wrong, malformed or already used, or a recovery code unknown or used (decision 0012)
  passkey_challenge_invalid: 400, // a passkey ceremony unknown, expired, already finished or begun by another session: begin again
  invalid_passkey: 400, // the authenticator's answer was refused (origin, challenge, signature, counter, unknown credential, malformed)
  unavailable: 503, // the database cannot be reached right now (restart, failover): nothing was done; retry after Retry-After
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

/** Every code, for the OpenAPI document's error schema. */
export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[];

export class IvoryError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, details?: Record<string, unknown>) {
    super(code);
    this.name = 'IvoryError';
    this.code = code;
    this.details = details;
  }
}

/**
 * The `details` of an error about one input (issue 20 item 4). `field` names
 * the input: a body field as a JSON path (`amount`, `assets[1].token`,
 * `allowed_ips[3]`), a query parameter (`limit`), a header
 * (`Idempotency-Key`), or `body` for the body as a whole; `reason` says what
 * is wrong, in a sentence a developer can act on. The details SPEC names (a
 * blocked account's reason, a group's failing option) keep their own shapes.
 */
export type FieldProblem = { readonly field: string; readonly reason: string };

/** An error about one input, with `details: {field, reason}`. */
export function fieldError(code: ErrorCode, field: string, reason: string): IvoryError {
  const details: FieldProblem = { field, reason };
  return new IvoryError(code, details);
}

export function statusOf(error: IvoryError): number {
  return STATUS_BY_CODE[error.code];
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(STATUS_BY_CODE, value);
}

/** The SPEC error envelope: `message` repeats the code. */
export function errorEnvelope(code: ErrorCode, details?: Record<string, unknown>) {
  return details === undefined
    ? { error: { code, message: code } }
    : { error: { code, message: code, details } };
}
