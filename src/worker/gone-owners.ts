/**
 * @module
 * Ends the leases of workers that died on this machine (see `process-owner.ts`), so that their jobs are
 * claimed at once rather than after `leaseMs`: what a worker restarted after `kill -9`, an OOM kill or a crash
 * does first. The store names the owners of live leases (an index read of the jobs being stepped); each one
 * this process can prove gone has its leases ended.
 */
import type { Store } from "../store/store.ts";
import { isGoneProcessOwner } from "./process-owner.ts";

/** A gone owner whose leases were ended. */
export interface GoneOwner {
  owner: string;
  /** Leases ended now. */
  leases: number;
}

/** Ends the live leases of every gone owner but `self`; nothing where the store cannot list owners. */
export async function expireGoneOwners(store: Store, self: string): Promise<GoneOwner[]> {
  const gone: GoneOwner[] = [];
  for (const owner of await store.leaseOwners()) {
    if (owner === self || !isGoneProcessOwner(owner)) continue;
    const leases = await store.expireLeases(owner);
    if (leases > 0) gone.push({ owner, leases });
  }
  return gone;
}
