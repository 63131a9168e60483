/** The gitea forge adapter (`--forge gitea`, Gitea and Forgejo): see gitea-forge.ts. */
export {
  GiteaForge,
  type GiteaForgeOptions,
  type GiteaRepositoryFacts,
  type GitOperations,
} from './gitea-forge.js';
export { ciStateOf, GITEA_WEBHOOK_EVENTS, readGiteaDelivery } from './webhook-events.js';
