/**
 * The delivery outboxes: webhook deliveries (webhook_subscriptions, webhook_messages, webhook_attempts)
 * and chat notifications (notify_subscriptions, notify_messages, notify_attempts). Both have the same
 * outbox columns, so one set of queries (store/webhooks.ts) and one delivery worker serve both: the
 * notifications' handle is the database seen through a plugin that renames the three tables.
 */
import {
  type Kysely,
  type KyselyPlugin,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  TableNode,
  type UnknownRow,
} from 'kysely';
import type { Database } from './database.js';

const NOTIFY_TABLES: Readonly<Record<string, string>> = {
  webhook_subscriptions: 'notify_subscriptions',
  webhook_messages: 'notify_messages',
  webhook_attempts: 'notify_attempts',
};

class RenameTables extends OperationNodeTransformer {
  constructor(private readonly names: Readonly<Record<string, string>>) {
    super();
  }

  protected override transformTable(node: TableNode): TableNode {
    const to = this.names[node.table.identifier.name];
    return to === undefined ? super.transformTable(node) : TableNode.create(to);
  }
}

class RenameTablesPlugin implements KyselyPlugin {
  private readonly transformer: RenameTables;

  constructor(names: Readonly<Record<string, string>>) {
    this.transformer = new RenameTables(names);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node, args.queryId);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The database with the webhook outbox's tables standing for the notification outbox's. */
export function notifyOutbox(db: Kysely<Database>): Kysely<Database> {
  return db.withPlugin(new RenameTablesPlugin(NOTIFY_TABLES));
}
