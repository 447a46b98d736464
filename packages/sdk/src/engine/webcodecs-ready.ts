/**
 * Resolves once this browser's WebCodecs may be asked about encoders. Why: WebKitGTK (GNOME Web,
 * and WebKit on Linux) registers its GStreamer encoder elements before GStreamer is initialised
 * when an encoder is a page's first WebCodecs call, and its web process aborts; a decoder's
 * question first initialises GStreamer. Elsewhere it costs one answered question, once.
 */
let ready: Promise<void> | null = null;

export function webCodecsReady(): Promise<void> {
  ready ??= (async () => {
    try {
      if (typeof VideoDecoder !== 'undefined') await VideoDecoder.isConfigSupported({ codec: 'vp8' });
    } catch {
      // a browser that refuses the question still has its answer for the encoders
    }
  })();
  return ready;
}
