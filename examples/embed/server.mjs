// An app that puts a vss call in its own page: its server mints connection tokens for its own
// users with an API key (the key never reaches the browser), its page loads the SDK from the vss
// server and joins. Node 20, nothing to install.
//
//   VSS_URL=http://127.0.0.1:8080 VSS_API_KEY=sk_live_… PORT=3001 node examples/embed/server.mjs
//
// then open http://127.0.0.1:3001/?user=alice&name=Alice in one tab, ?user=bob&name=Bob in another.
// ?bare=1 draws nothing: the page places the SDK's video elements itself.
import { createServer } from 'node:http';

const vss = process.env.VSS_URL ?? 'http://127.0.0.1:8080';
const key = process.env.VSS_API_KEY;
if (!key) throw new Error('VSS_API_KEY is not set: an API key of your vss project (Keys page)');
const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

async function api(path, body) {
  const res = await fetch(`${vss}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${json.error.code} ${json.error.message}`);
  return json.data;
}

// One session for everyone who opens this app; your app would keep one per meeting.
const session = process.env.VSS_SESSION ?? (await api('/v1/sessions', { name: 'Embedded call' })).id;

const page = `<!doctype html><meta charset="utf-8"><title>My app with a call</title>
<style>body{margin:0;font-family:system-ui}#call{height:90vh}#bare video,#bare canvas{width:240px;margin:4px}</style>
<div id="call"></div><div id="bare"></div>
<script type="module">
  import { joinRoom } from '${vss}/sdk/vss.js';
  const q = new URLSearchParams(location.search);
  // The app's own user; a real app knows who is signed in.
  const token = () => fetch('/token?user=' + encodeURIComponent(q.get('user') ?? 'alice') +
    '&name=' + encodeURIComponent(q.get('name') ?? 'Alice')).then((r) => r.json()).then((j) => j.token);
  const bare = q.has('bare');
  try {
    const room = await joinRoom({ token, container: bare ? undefined : document.getElementById('call') });
    if (bare) room.on('track', ({ user_id, element }) => {
      if (element) { element.dataset.user = user_id; document.getElementById('bare').append(element); }
    });
    window.room = room;
  } catch (err) {
    document.body.textContent = 'Could not join: ' + err.message + ' (' + err.code + ')';
    window.joinError = { code: err.code, message: err.message };
  }
</script>`;

createServer(async (req, res) => {
  const url = new URL(req.url, 'http://app');
  if (url.pathname === '/token') {
    // Mint a token for the app's user: app-… ids are the app's own, whatever its users type.
    const user = `app-${url.searchParams.get('user')}`.replace(/[^\w-]/g, '').slice(0, 64);
    const data = await api(`/v1/sessions/${session}/connection`, {
      user_id: user,
      display_name: url.searchParams.get('name') ?? user,
    }).catch((err) => ({ error: err.message }));
    res.writeHead(data.error ? 502 : 200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(data.error ? data : { token: data.access_token }));
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(page);
}).listen(Number(process.env.PORT ?? 3001), () =>
  console.log(`app on :${process.env.PORT ?? 3001}, session ${session}`),
);
