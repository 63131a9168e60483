/** A notice as a Slack message: Block Kit blocks (types of @slack/types), with the plain text as fallback. */
import type { KnownBlock } from '@slack/types';
import type { IncomingWebhookSendArguments } from '@slack/webhook';
import { contextLine, headline, links, type Notice, noticeText, reasonLine } from './notice.js';

/** Slack's mrkdwn escapes: &, < and > (https://api.slack.com/reference/surfaces/formatting#escaping). */
const mrkdwn = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function slackMessage(n: Notice): IncomingWebhookSendArguments {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: headline(n).slice(0, 150), emoji: true } },
  ];
  if (n.pr) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mrkdwn(reasonLine(n.pr)).slice(0, 3000) } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: mrkdwn(contextLine(n)) }] });
  const urls = links(n);
  if (urls.length > 0) {
    blocks.push({
      type: 'actions',
      elements: urls.map((l) => ({ type: 'button', text: { type: 'plain_text', text: l.label }, url: l.url })),
    });
  }
  return { text: noticeText(n), blocks };
}
