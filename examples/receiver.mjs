import { createServer } from 'node:http';
import { verifyWebhook } from '@vss/client';

const secret = process.env.VSS_WEBHOOK_SECRET; // the whsec_… shown when the webhook was created
const port = Number(process.env.PORT ?? 3000); // where the webhook's url points
const handled = new Set(); // event ids done: an event may arrive more than once

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    // Verify the raw bytes as received, never JSON parsed and serialised again.
    const raw = Buffer.concat(chunks);
    const verdict = await verifyWebhook({ secret, headers: req.headers, body: raw });
    if (!verdict.valid) {
      res.writeHead(401).end(); // verdict.reason says why
      return;
    }
    res.writeHead(200).end(); // answer at once; do the work after
    const event = JSON.parse(raw.toString('utf8'));
    if (handled.has(event.id)) return;
    handled.add(event.id);
    console.log('receiver:', event.type, event.session_id ?? '');
  });
}).listen(port, '127.0.0.1');
