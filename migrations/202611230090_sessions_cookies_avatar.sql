-- Profile avatars (issue 10, item 6; SPEC "Profile" avatar_url). The PNG as
-- normalised by POST /profile/avatar (at most 256x256, no metadata, a few
-- tens of KB), shown as an inline data URL. Dashboard cookie sessions (item 3)
-- need no column: the cookie carries the session token and sessions already
-- keep their csrf_token.
alter table users add column avatar_png bytea;
