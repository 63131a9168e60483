/** The github forge adapter (`--forge github`): its definition, and github-forge.ts. */
export { githubForge } from './definition.js';
export { GitHubForge, type GitHubForgeOptions } from './github-forge.js';
export { gitHubForgeOf, type GitHubSettings } from './settings.js';
export {
  GITHUB_WEBHOOK_EVENTS,
  gitHubObservations,
  readGitHubDelivery,
  type GitHubWebhookEvent,
} from './observations.js';
