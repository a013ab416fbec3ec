import { DEVICE_CODE_GRANT, memoryClientStore } from '@gatehousejs/core';
import type { LoginPageModel, PageContext } from '@gatehousejs/core/ui';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, logIn, ORIGIN } from '../../test/browser-flow';
import { ISSUER, post, testClients, testInstance } from '../../test/fixtures';

/*
 * Pages a real app can ship (issue 29, item 4): the language from ui_locales, then Accept-Language,
 * a message catalog (English and French built in, more through ui.messages), async renderers that
 * get the request and the language, stable login failure codes, and an extensible CSP.
 */

function navigate(browser: FakeBrowser, url: string, acceptLanguage?: string) {
  return browser.get(url, acceptLanguage ? { 'Accept-Language': acceptLanguage } : {});
}

describe('the language of the pages', () => {
  it('is French end to end with ui_locales=fr: login page, failed login, consent page', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const url = authorizeUrl({
      client_id: 'other-client',
      code_challenge: null,
      code_challenge_method: null,
      ui_locales: 'fr-CA en',
    });
    const page = await (await browser.get(url)).text();
    expect(page).toContain('<html lang="fr">');
    expect(page).toContain('<h1>Connexion</h1>');
    expect(page).toContain('pour continuer vers <strong><bdi>other-client</bdi></strong>');
    expect(page).toContain('>Se connecter</button>');
    const failed = await (await browser.submit(page, { username: 'demo', password: 'wrong' })).text();
    expect(failed).toContain('Le nom d&#39;utilisateur ou le mot de passe est incorrect.');
    const consent = await (
      await browser.follow(await browser.submit(failed, { username: 'demo', password: 'demo-password' }))
    ).text();
    expect(consent).toContain('<html lang="fr">');
    expect(consent).toContain('Autoriser l&#39;accès ?');
    expect(consent).toContain('<strong><bdi>other-client</bdi></strong> souhaite agir en votre nom.');
    expect(consent).toContain('Vous serez renvoyé vers <strong>localhost:3000</strong>.');
    expect(consent).toContain('>Autoriser</button>');
  });

  it('is French end to end on the device verification pages with Accept-Language: fr: code form, sign-in, confirmation, result', async () => {
    const clients = memoryClientStore([
      ...(await testClients()),
      {
        id: 'tv',
        name: 'Téléviseur',
        type: 'public',
        tokenEndpointAuthMethod: 'none',
        redirectUris: [],
        grantTypes: [DEVICE_CODE_GRANT],
      },
    ]);
    const t = await testInstance({ clients });
    const started = await t.gatehouse.fetch(post('/oauth2/v1/device_authorization', { client_id: 'tv' }));
    const { user_code: userCode } = (await started.json()) as { user_code: string };
    const fr = { 'Accept-Language': 'fr-FR, fr;q=0.9' };
    const browser = new FakeBrowser(t.gatehouse);
    const form = await (await browser.get(`${ISSUER}/device`, fr)).text();
    expect(form).toContain('<html lang="fr">');
    expect(form).toContain('<h1>Connecter un appareil</h1>');
    expect(form).toContain('>Continuer</button>');
    const wrong = await (
      await browser.submit(form, { user_code: 'BCDF-GHJK' === userCode ? 'CCCC-CCCC' : 'BCDF-GHJK' }, fr)
    ).text();
    expect(wrong).toContain('Ce code n&#39;est pas valide');
    // Nobody signed in: the built-in login page of the device's interaction, in French too.
    const login = await (await browser.submitAndFollow(form, { user_code: userCode }, fr)).text();
    expect(login).toContain('<h1>Connexion</h1>');
    expect(login).toContain('pour continuer vers <strong><bdi>Téléviseur</bdi></strong>');
    const confirm = await (
      await browser.submitAndFollow(login, { username: 'demo', password: 'demo-password' }, fr)
    ).text();
    expect(confirm).toContain('<html lang="fr">');
    expect(confirm).toContain('<h1>Connecter un appareil ?</h1>');
    expect(confirm).toContain('<strong>Téléviseur</strong> sur un appareil souhaite agir en votre nom.');
    expect(confirm).toContain('choisissez Refuser.');
    expect(confirm).toContain('>Autoriser</button>');
    expect(confirm).toContain('Connecté en tant que demo.');
    const done = await (await browser.submit(confirm, { decision: 'allow' }, fr)).text();
    expect(done).toContain('<h1>Appareil connecté</h1>');
    expect(done).not.toContain('<form');
  });

  it('follows Accept-Language (by quality) without ui_locales, and falls back to English', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    const french = await (await navigate(browser, authorizeUrl(), 'de;q=0.9, fr-FR;q=0.95, *;q=0.1')).text();
    expect(french).toContain('<h1>Connexion</h1>');
    const english = await (await navigate(browser, authorizeUrl(), 'de, ja')).text();
    expect(english).toContain('<html lang="en">');
    expect(english).toContain('<h1>Sign in</h1>');
    // ui_locales comes first.
    const chosen = await (await navigate(browser, authorizeUrl({ ui_locales: 'en' }), 'fr')).text();
    expect(chosen).toContain('<h1>Sign in</h1>');
  });

  it('takes more languages and other texts from ui.messages, and refuses unknown texts and tags', async () => {
    const t = await testInstance({
      ui: {
        messages: {
          de: { signInTitle: 'Anmelden', usernameLabel: 'Benutzername' },
          fr: { signInButton: 'Entrer' },
        },
      },
    });
    const browser = new FakeBrowser(t.gatehouse);
    const german = await (await navigate(browser, authorizeUrl(), 'de-AT')).text();
    expect(german).toContain('<html lang="de">');
    expect(german).toContain('<h1>Anmelden</h1>');
    expect(german).toContain('Benutzername');
    expect(german).toContain('>Sign in</button>'); // what German lacks comes from English
    expect(await (await navigate(browser, authorizeUrl(), 'fr')).text()).toContain('>Entrer</button>');
    await expect(testInstance({ ui: { messages: { de: { signInTitel: 'x' } as never } } })).rejects.toThrow(
      /^ui\.messages\.de\.signInTitel: unknown text/,
    );
    await expect(testInstance({ ui: { messages: { 'not a tag': {} } } })).rejects.toThrow(
      /^ui\.messages\.not a tag: not a language tag/,
    );
  });
});

describe('renderers', () => {
  it('may be async, and get the request, the language and a stable login failure code', async () => {
    const seen: { model: LoginPageModel; context: PageContext }[] = [];
    const t = await testInstance({
      ui: {
        renderLogin: async (model, context) => {
          seen.push({ model, context });
          await new Promise((resolve) => setTimeout(resolve, 1));
          return `<!doctype html><form method="post" action="${model.action}"><input type="hidden" name="csrf_token" value="${model.csrfToken}">${Object.entries(
            model.hiddenFields,
          )
            .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
            .join('')}</form><p>${context.locale} ${model.errorCode ?? ''}</p>`;
        },
      },
    });
    const browser = new FakeBrowser(t.gatehouse);
    const wrong = await logIn(browser, authorizeUrl({ ui_locales: 'fr' }), 'demo', 'wrong');
    expect(await wrong.text()).toContain('<p>fr invalid_credentials</p>');
    const last = seen.at(-1)!;
    expect(last.model.errorCode).toBe('invalid_credentials');
    expect(last.model.error).toBe("Le nom d'utilisateur ou le mot de passe est incorrect.");
    expect(last.context.request.url).toBe(`${ORIGIN}/demo/login`);
    const empty = await logIn(browser, authorizeUrl(), '', '');
    expect(await empty.text()).toContain('<p>en missing_credentials</p>');
  });
});

describe('ui.contentSecurityPolicy', () => {
  it('adds the host’s style, font, script, image and connect sources, and keeps everything else shut', async () => {
    const t = await testInstance({
      ui: {
        contentSecurityPolicy: {
          styles: ['https://cdn.example.com'],
          fonts: ['https://fonts.example.com'],
          scripts: ["'self'", 'https://cdn.example.com'],
          images: ['https://img.example.com'],
          connect: ["'self'"],
        },
      },
    });
    const response = await new FakeBrowser(t.gatehouse).get(authorizeUrl());
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'unsafe-inline' https://cdn.example.com");
    expect(csp).toContain("img-src 'self' data: https://img.example.com");
    expect(csp).toContain('font-src https://fonts.example.com');
    expect(csp).toContain("script-src 'self' https://cdn.example.com");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
  });

  it('refuses anything but self and https origins', async () => {
    for (const source of [
      "'unsafe-inline'",
      'http://cdn.example.com',
      'https://cdn.example.com/x.css',
      'https://a.example; script-src *',
      '*',
    ])
      await expect(testInstance({ ui: { contentSecurityPolicy: { scripts: [source] } } })).rejects.toThrow(
        /^ui\.contentSecurityPolicy\.scripts: .* is not 'self' or an https origin/,
      );
    await expect(testInstance({ ui: { contentSecurityPolicy: { frames: [] } as never } })).rejects.toThrow(
      /^ui\.contentSecurityPolicy\.frames: unknown/,
    );
  });
});
