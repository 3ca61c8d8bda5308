import { describe, expect, it } from 'vitest';
import { secureCookies, sessionCookie } from '../../src/http/consoleAuth.js';

describe('the console session cookie', () => {
  it('is Secure everywhere except plain-HTTP localhost', () => {
    expect(secureCookies('http://localhost:3000')).toBe(false);
    expect(secureCookies('http://127.0.0.1:8080')).toBe(false);
    expect(secureCookies('https://localhost:3000')).toBe(true);
    expect(secureCookies('http://handoff.example')).toBe(true);
    expect(secureCookies('https://handoff.example')).toBe(true);
  });

  it('is HttpOnly, SameSite=Strict, scoped to /console, and carries Secure when asked', () => {
    expect(sessionCookie('tok', { secure: true, maxAgeS: 60 })).toBe(
      'handoff_console=tok; Path=/console; HttpOnly; SameSite=Strict; Max-Age=60; Secure',
    );
    expect(sessionCookie('tok', { secure: false, maxAgeS: 60 })).not.toMatch(/Secure/);
  });
});
