import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const secret = process.env.VSS_WEBHOOK_SECRET; // the whsec_… shown when the webhook was created
const handled = new Set(); // event ids done: an event may arrive more than once

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    // Verify the raw bytes as received, never JSON parsed and serialised again.
    const raw = Buffer.concat(chunks);
    const expected = createHmac('sha256', secret).update(raw).digest();
    const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200).end(); // answer at once; do the work after
    const event = JSON.parse(raw.toString('utf8'));
    if (handled.has(event.id)) return;
    handled.add(event.id);
    console.log('receiver:', event.type, event.session_id ?? '');
  });
}).listen(3000, '127.0.0.1');
