-- E-mail code sign-in and profile preferences (issue 10, items 1 and 6), and
-- the mail outbox that every module sends mail through (ARCHITECTURE rule 1).

-- One sign-in attempt by e-mailed code. Only a keyed digest of the code is
-- kept; the row also counts wrong guesses (dead at the limit) and, by subject
-- and created_at, the starts that the per-address throttle allows.
create table email_challenges (
  id uuid primary key,
  -- The address lower-cased: the identity subject it signs in to.
  subject text not null,
  -- The address as given (domain lower-cased): the label of a new identity.
  address text not null,
  code_digest text not null,
  attempts integer not null default 0,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  consumed_at timestamptz
);
create index email_challenges_subject on email_challenges(subject, created_at);

-- Mail to send, written in the transaction that decides to send it and sent by
-- the mail worker (platform/mail). The body can hold a secret (a sign-in code):
-- it is sealed with SECRET_KEY and erased once the message is sent or given up.
create table mail_outbox (
  id uuid primary key,
  recipient text not null,
  subject text not null,
  body_sealed text,
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz,
  -- A message that is useless after this (a code that has expired) is not sent later.
  expires_at timestamptz,
  last_error text,
  created_at timestamptz not null,
  sent_at timestamptz
);
create index mail_outbox_due on mail_outbox(next_attempt_at) where status = 'pending';

-- SPEC "Profile" preferences.
alter table users add column theme text not null default 'system' check (theme in ('dark', 'light', 'system'));
alter table users add column language text not null default 'en' check (language in ('en', 'ru'));
