/**
 * Who sent a config write (contract §2.10, "Management source"): Terraform when its User-Agent or
 * X-Source header contains `terraform` or `opentofu` in any letter case (Trunk's Terraform provider
 * sends `x-source: terraform`; OpenTofu counts as Terraform).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ConfigSource } from '../app/types.js';

const TERRAFORM = /terraform|opentofu/i;

export function configSource(headers: IncomingHttpHeaders): ConfigSource {
  const named = [headers['user-agent'], headers['x-source']].flat().some((value) => value !== undefined && TERRAFORM.test(value));
  return named ? 'terraform' : 'other';
}
