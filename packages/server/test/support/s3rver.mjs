// s3rver's command line, with one thing mended: its filesystem store answers a PUT once the
// object's bytes have been handed to the file's write stream, not once they are in the file. A
// GET straight after could then read the object part-written (seen in CI: bytes 0-8 of a 9-byte
// object just stored over a larger one came back as 1 byte, the file's size read between its
// truncation and its write). S3 reads back what it acknowledged; so must the stand-in for it.
// The mend replaces one of s3rver's internal methods, so package.json pins s3rver exactly
// (3.7.1): another version may have renamed or changed it.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import FilesystemStore from 's3rver/lib/stores/filesystem.js';

/** As s3rver 3.7's own, but resolving once the file is written and closed. */
FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await mkdir(dirname(objectPath), { recursive: true });
  const md5 = createHash('md5');
  let size = 0;
  const counted = new Transform({
    transform(chunk, _encoding, done) {
      md5.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  await pipeline(content, counted, createWriteStream(objectPath));
  const digest = md5.digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
};

await import('s3rver/bin/s3rver.js');
