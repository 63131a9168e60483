/** The gitea forge adapter (`--forge gitea`, Gitea and Forgejo): see gitea-forge.ts. */
export {
  GiteaForge,
  type GiteaForgeOptions,
  type GiteaRepositoryFacts,
  type GitOperations,
} from './gitea-forge.js';
