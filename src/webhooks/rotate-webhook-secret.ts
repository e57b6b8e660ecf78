import type { Clock } from '../platform/clock.js';
import type { SecretBox } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { requireLiveEndpoint } from './find-endpoint.js';
import type { SealedSecretBody } from './one-time-secret.js';
import { newWebhookSecret } from '../webhook-delivery/index.js';
import { updateEndpoint } from './webhooks.repository.js';
import { SECRET_ROTATION_OVERLAP_MS, endpointView, type EndpointView } from './webhook-endpoint.js';

/**
 * POST /shops/{shop_id}/webhooks/{id}/rotate-secret: a new secret, shown once.
 * The secret it replaces keeps signing beside it for 24 hours (two `v1=` in
 * the branded header, two signatures in `webhook-signature`), so receivers can
 * switch without losing a delivery. Rotating again within the overlap drops
 * the oldest secret: at most two ever sign.
 */
export async function rotateWebhookSecret(
  trx: Tx,
  deps: { readonly clock: Clock; readonly secrets: SecretBox },
  principal: Principal,
  shopId: string,
  endpointId: string,
): Promise<EndpointView & SealedSecretBody> {
  const endpoint = await requireLiveEndpoint(trx, principal, shopId, endpointId, 'write');
  const now = deps.clock.now();
  const secretSealed = deps.secrets.seal(newWebhookSecret());
  const rotated = await updateEndpoint(
    trx,
    endpoint.id,
    {
      secretSealed,
      previousSecretSealed: endpoint.secretSealed,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS),
    },
    now,
  );
  return { ...endpointView(rotated, now), secret_sealed: secretSealed };
}
