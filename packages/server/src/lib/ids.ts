import { v7 } from 'uuid';

/** A new identifier: UUIDv7, time-ordered so that primary-key indexes stay local. */
export function newId(): string {
  return v7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when the text is a UUID in canonical form. */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
