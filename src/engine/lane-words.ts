/**
 * A PR's lane in words (parallel mode): the targets it impacts and, when they were computed from its
 * paths (impactedTargetsFromPaths), why: "web, api — touches web/** (web); api/** (api)". The CLI,
 * the API's outlook and the forge's comment say it with these words.
 */
import type { ImpactedTargets } from './types.js';

export function laneText(targets: ImpactedTargets, why?: string): string {
  const which = targets === 'ALL' ? 'every target' : targets.join(', ') || 'no target';
  return why ? `${which} — ${why}` : which;
}
