import type { LoginErrorCode, PageTexts } from './types.js';

export type { LoginErrorCode } from './types.js';

/**
 * The built-in message catalog: every text of the login, consent and device verification pages
 * (and the titles and buttons of the others), per language. `{client}`, `{host}`, `{user}`,
 * `{allow}` and `{deny}` are filled in (escaped) by the pages. A host adds languages or changes texts with `ui.messages`; `ui.texts` changes English.
 */
export const BUILT_IN_MESSAGES: Readonly<Record<string, PageTexts>> = {
  en: {
    usernameLabel: 'Username',
    passwordLabel: 'Password',
    signInTitle: 'Sign in',
    signInButton: 'Sign in',
    consentTitle: 'Allow access?',
    allowButton: 'Allow',
    denyButton: 'Deny',
    errorTitle: 'Something went wrong',
    continueTo: 'to continue to {client}',
    wantsToAct: '{client} wants to act on your behalf.',
    asksFor: 'It asks for:',
    asksForAccount: 'It asks for access to your account.',
    resourcesAt: 'At:',
    detailsAsked: 'In detail:',
    sentBackTo: 'You will be sent back to {host}.',
    signedInAs: 'Signed in as {user}.',
    loginInvalidCredentials: 'The username or password is incorrect.',
    loginMissingCredentials: 'Enter your username and password.',
    loginRateLimited: 'Too many failed attempts. Wait a while, then try again.',
    loginBusy: 'The server is busy. Try again in a moment.',
    loginFormExpired: 'The form has expired or was not sent by this site. Reload the page and try again.',
    selfRegistered:
      'This application registered itself; its name is its own claim, not checked by this site.',
    selfRegisteredFrom:
      'This application registered itself from {host}; its name is its own claim, not checked by this site.',
    deviceCodeTitle: 'Connect a device',
    deviceCodeIntro: 'Enter the code shown on your device.',
    deviceCodeLabel: 'Code',
    deviceCodeButton: 'Continue',
    deviceCodeInvalid:
      'That code is not valid, has expired or was already used. Check the code on your device.',
    deviceCodeMalformed: 'Enter the 8-letter code shown on your device (like BCDF-GHJK).',
    deviceConfirmTitle: 'Connect a device?',
    deviceWantsToAct: '{client} on a device wants to act on your behalf.',
    deviceCompareCode: 'Check that this is the code shown on your device:',
    deviceDenyHint: 'If it is not, or you did not start this sign-in yourself, choose {deny}.',
    deviceChooseDecision: 'Choose {allow} or {deny}.',
    deviceApprovedTitle: 'Device connected',
    deviceApprovedText: 'The device is signed in. You can close this page and return to your device.',
    deviceDeniedTitle: 'Access denied',
    deviceDeniedText: 'The device was not given access. You can close this page.',
    approvalsTitle: 'Requests awaiting your approval',
    approvalsIntro:
      'These applications ask to act on your behalf. Allow a request only if you started it and its message is the one the application shows.',
    approvalsEmpty: 'No request is waiting for your approval.',
    approvalsBindingMessage: 'Message:',
    approvalsAllowed: 'The request was allowed.',
    approvalsDenied: 'The request was denied.',
    approvalsGone: 'That request has expired or was already decided.',
  },
  fr: {
    usernameLabel: "Nom d'utilisateur",
    passwordLabel: 'Mot de passe',
    signInTitle: 'Connexion',
    signInButton: 'Se connecter',
    consentTitle: "Autoriser l'accès ?",
    allowButton: 'Autoriser',
    denyButton: 'Refuser',
    errorTitle: 'Une erreur est survenue',
    continueTo: 'pour continuer vers {client}',
    wantsToAct: '{client} souhaite agir en votre nom.',
    asksFor: 'Il demande :',
    asksForAccount: "Il demande l'accès à votre compte.",
    resourcesAt: 'Sur :',
    detailsAsked: 'En détail :',
    sentBackTo: 'Vous serez renvoyé vers {host}.',
    signedInAs: 'Connecté en tant que {user}.',
    loginInvalidCredentials: "Le nom d'utilisateur ou le mot de passe est incorrect.",
    loginMissingCredentials: "Saisissez votre nom d'utilisateur et votre mot de passe.",
    loginRateLimited: 'Trop de tentatives échouées. Patientez un moment, puis réessayez.',
    loginBusy: 'Le serveur est occupé. Réessayez dans un instant.',
    loginFormExpired:
      "Le formulaire a expiré ou n'a pas été envoyé par ce site. Rechargez la page et réessayez.",
    selfRegistered:
      "Cette application s'est enregistrée elle-même ; son nom est celui qu'elle se donne, non vérifié par ce site.",
    selfRegisteredFrom:
      "Cette application s'est enregistrée elle-même depuis {host} ; son nom est celui qu'elle se donne, non vérifié par ce site.",
    deviceCodeTitle: 'Connecter un appareil',
    deviceCodeIntro: 'Saisissez le code affiché sur votre appareil.',
    deviceCodeLabel: 'Code',
    deviceCodeButton: 'Continuer',
    deviceCodeInvalid:
      "Ce code n'est pas valide, a expiré ou a déjà été utilisé. Vérifiez le code sur votre appareil.",
    deviceCodeMalformed: 'Saisissez le code de 8 lettres affiché sur votre appareil (par exemple BCDF-GHJK).',
    deviceConfirmTitle: 'Connecter un appareil ?',
    deviceWantsToAct: '{client} sur un appareil souhaite agir en votre nom.',
    deviceCompareCode: "Vérifiez qu'il s'agit bien du code affiché sur votre appareil :",
    deviceDenyHint:
      "Si ce n'est pas le cas, ou si vous n'avez pas lancé cette connexion vous-même, choisissez {deny}.",
    deviceChooseDecision: 'Choisissez {allow} ou {deny}.',
    deviceApprovedTitle: 'Appareil connecté',
    deviceApprovedText: "L'appareil est connecté. Vous pouvez fermer cette page et revenir à votre appareil.",
    deviceDeniedTitle: 'Accès refusé',
    deviceDeniedText: "L'appareil n'a pas reçu l'accès. Vous pouvez fermer cette page.",
    approvalsTitle: 'Demandes en attente de votre accord',
    approvalsIntro:
      "Ces applications demandent à agir en votre nom. N'autorisez une demande que si vous l'avez faite et que son message est celui que l'application affiche.",
    approvalsEmpty: "Aucune demande n'attend votre accord.",
    approvalsBindingMessage: 'Message :',
    approvalsAllowed: 'La demande a été autorisée.',
    approvalsDenied: 'La demande a été refusée.',
    approvalsGone: 'Cette demande a expiré ou a déjà été traitée.',
  },
};

/** The language every catalog falls back to. */
export const DEFAULT_LOCALE = 'en';

/** The catalog text of each login failure. */
export const LOGIN_ERROR_TEXT: Readonly<Record<LoginErrorCode, keyof PageTexts>> = {
  invalid_credentials: 'loginInvalidCredentials',
  missing_credentials: 'loginMissingCredentials',
  rate_limited: 'loginRateLimited',
  busy: 'loginBusy',
  form_expired: 'loginFormExpired',
};

/** `template` with its `{name}` placeholders replaced: the template escaped, the values as given (HTML). */
export function fillTemplate(
  template: string,
  values: Readonly<Record<string, string>>,
  escapeText: (text: string) => string,
): string {
  return template
    .split(/(\{[a-z]+\})/)
    .map((part) => {
      const name = /^\{([a-z]+)\}$/.exec(part)?.[1];
      return name !== undefined && Object.hasOwn(values, name) ? values[name]! : escapeText(part);
    })
    .join('');
}
