/**
 * SPEC "Limits": team members plus pending invitations per merchant; operator
 * staff can change it per merchant (merchants.team_limit). Checked at inviting
 * and at accepting, once the team routes exist.
 */
export const DEFAULT_TEAM_LIMIT = 10;

export function teamLimit(override: number | null): number {
  return override ?? DEFAULT_TEAM_LIMIT;
}
