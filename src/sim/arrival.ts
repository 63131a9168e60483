/** What a PR's arrival tells the engine: its submission, and in parallel mode the lane it impacts. */
import type { EngineEvent } from '../engine/index.js';
import type { ArrivingPr } from './workload.js';

export function arrivalEvents(pr: ArrivingPr, at: number, baseBranch: string, parallel: boolean): EngineEvent[] {
  const headSha = `head-${pr.number}`;
  const submit: EngineEvent = {
    kind: 'submit',
    at,
    entryId: `pr-${pr.number}`,
    reason: 'API_REQUESTED',
    pr: {
      number: pr.number,
      headSha,
      baseBranch,
      title: `PR ${pr.number}`,
      author: pr.author,
      mergeability: 'mergeable',
    },
  };
  if (!parallel) return [submit];
  return [submit, { kind: 'impactedTargets', at, prNumber: pr.number, headSha, targets: [`lane-${pr.lane}`] }];
}
