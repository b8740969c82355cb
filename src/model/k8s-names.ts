import { z } from 'zod';

// Kubernetes object-name rules, checked at the API so a bad name is a 400 on PATCH, not a failed
// deployment minutes later.
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

export const dnsLabel = z
  .string()
  .max(63)
  .regex(LABEL, 'must be a DNS-1123 label: lower-case letters, digits and "-", at most 63 characters');
export const dnsSubdomain = z
  .string()
  .max(253)
  .regex(SUBDOMAIN, 'must be a DNS-1123 subdomain: lower-case letters, digits, "-" and "."');
export const configMapKey = z
  .string()
  .max(253)
  .regex(CONFIG_MAP_KEY, 'must consist of letters, digits, "-", "_" or "."');
