import { Type } from 'typebox';

/** The `user` object of session answers (SPEC "Principal and session"), for route schemas. */
export const SessionUserSchema = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  onboarding_required: Type.Boolean(),
  mfa_required: Type.Boolean(),
  mfa_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}, { additionalProperties: true });
