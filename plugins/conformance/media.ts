/**
 * Tiny media samples for the content tools, resources and prompts: a 1×1 PNG and a WAV file
 * of eight samples of silence (8 kHz, mono, 8-bit PCM), both base64 as MCP carries them.
 */

/** A 1×1 red pixel, image/png. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** Eight samples of silence, audio/wav. */
export const WAV_BASE64 = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';
