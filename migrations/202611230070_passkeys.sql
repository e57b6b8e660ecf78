-- Passkeys (issue 10, item 5; SPEC "Sign-in" /auth/passkeys, "Profile" security summary).

-- A WebAuthn credential registered by a user: a second factor (possession),
-- verified with @simplewebauthn/server. `credential_id` is the authenticator's
-- id, base64url, unique across users (an authenticator never reuses one).
-- `counter` is the last signature counter seen: an assertion must raise it
-- unless the authenticator keeps none (always 0). It is a 32-bit unsigned value.
create table passkeys (
  id uuid primary key,
  user_id uuid not null references users(id) on delete cascade,
  credential_id text not null unique,
  -- The COSE public key, base64url.
  public_key text not null,
  counter bigint not null default 0,
  -- Transport hints for allowCredentials, comma-separated (usb, nfc, ble, hybrid, internal…).
  transports text not null default '',
  name text not null,
  created_at timestamptz not null,
  last_used_at timestamptz
);
create index passkeys_user on passkeys(user_id, created_at);

-- One begun ceremony (registration or authentication): the challenge is kept
-- here, bound to the session that began it, short-lived and single-use (the
-- finish deletes the row whatever its outcome).
create table passkey_challenges (
  id uuid primary key,
  session_id uuid not null references sessions(id) on delete cascade,
  user_id uuid not null references users(id) on delete cascade,
  purpose text not null check (purpose in ('register', 'authenticate')),
  challenge text not null,
  -- The name asked for at registration.
  name text,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index passkey_challenges_expiry on passkey_challenges(expires_at);
