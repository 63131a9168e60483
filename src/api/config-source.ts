/**
 * Terraform as a client (contract §2.10, "Management source"): a request whose User-Agent or
 * X-Source header contains `terraform` or `opentofu` in any letter case (Trunk's Terraform provider
 * sends `x-source: terraform`; OpenTofu counts as Terraform). Such a request
 * - marks the queue it writes as managed by Terraform (configSource), and
 * - is answered in Trunk's lowercase spelling of states (enumCaseFor): the provider accepts `state`
 *   only as running, paused or draining and stores what it reads back, so an UPPERCASE answer would
 *   fail every apply ("Provider produced inconsistent result") and show drift on every plan.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ConfigSource } from '../app/service-port.js';
import type { EnumCase } from './v1/wire.js';

const TERRAFORM = /terraform|opentofu/i;

function fromTerraform(headers: IncomingHttpHeaders): boolean {
  return [headers['user-agent'], headers['x-source']]
    .flat()
    .some((value) => value !== undefined && TERRAFORM.test(value));
}

export function configSource(headers: IncomingHttpHeaders): ConfigSource {
  return fromTerraform(headers) ? 'terraform' : 'other';
}

/** How to spell states in the answer: the server's setting, but always lowercase for Terraform. */
export function enumCaseFor(headers: IncomingHttpHeaders, configured: EnumCase): EnumCase {
  return fromTerraform(headers) ? 'lower' : configured;
}
