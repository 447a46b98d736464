import { v7 } from 'uuid';

/** A new identifier: UUIDv7, time-ordered so that primary-key indexes stay local. */
export function newId(): string {
  return v7();
}
