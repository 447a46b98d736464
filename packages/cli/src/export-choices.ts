/** The choices of an export's file, as `vss export` and `vss auto-export set` take them (the API's). */
export const LAYOUTS = ['grid', 'presenter', 'speaker'] as const;
export const ORIENTATIONS = ['landscape', 'vertical'] as const;
export const RESOLUTIONS = ['720p', '1080p'] as const;
export const FORMATS = ['mp4', 'm4a'] as const;
