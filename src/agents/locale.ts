/**
 * @module
 * A job's locale (`submitJob(agent, { locale: "pl-PL" })`, kept as the job's `LOCALE` setting and inherited by
 * its child jobs): the model is told, in the user's language, to answer only in it — a rule appended to the
 * system prompt, and a short hint after each of the user's messages (`AUTO_LANG_RULE` / `AUTO_LANG_HINT` set
 * to false switch them off). English, Polish, German, French, Spanish and Italian have texts of their own; any
 * other language gets the English texts naming it.
 */

/** A locale as a job keeps it. */
export interface JobLocale {
  /** The canonical tag (`pl-PL`, `de`). */
  tag: string;
  /** The language code, lower case (`pl`). */
  language: string;
  /** The region code, upper case (`PL`), when given. */
  region?: string;
}

interface LanguageTexts {
  rule: string;
  hint: string;
}

const TEXTS: Readonly<Record<string, LanguageTexts>> = {
  en: {
    rule: "CRITICAL LANGUAGE RULE: respond to the user exclusively in English. Translate into English whatever you show the user from " +
      "examples, tool names, parameter names and tool output, and never let examples or data in another language change the language of your answers.",
    hint: "REMEMBER: Respond exclusively in English",
  },
  pl: {
    rule: "KRYTYCZNA ZASADA JĘZYKOWA: odpowiadaj użytkownikowi wyłącznie po polsku. Nie używaj w rozmowie angielskich nazw narzędzi ani " +
      "parametrów i tłumacz na polski wszystko, co pokazujesz z przykładów i wyników narzędzi. Jesteś polskojęzycznym asystentem.",
    hint: "PAMIĘTAJ: Odpowiedz wyłącznie po polsku",
  },
  de: {
    rule: "KRITISCHE SPRACHREGEL: Antworte dem Benutzer ausschließlich auf Deutsch. Verwende im Gespräch keine englischen Namen von " +
      "Werkzeugen oder Parametern und übersetze alles, was du aus Beispielen und Werkzeugergebnissen zeigst, ins Deutsche. Du bist ein deutschsprachiger Assistent.",
    hint: "ERINNERUNG: Antworte ausschließlich auf Deutsch",
  },
  fr: {
    rule: "RÈGLE LINGUISTIQUE ESSENTIELLE : réponds à l'utilisateur uniquement en français. N'emploie jamais avec lui les noms anglais " +
      "des outils ou des paramètres et traduis en français tout ce que tu montres des exemples et des résultats des outils. Tu es un assistant francophone.",
    hint: "RAPPEL : Réponds uniquement en français",
  },
  es: {
    rule: "REGLA DE IDIOMA CRÍTICA: responde al usuario exclusivamente en español. No uses con él los nombres en inglés de herramientas " +
      "o parámetros y traduce al español todo lo que muestres de los ejemplos y de los resultados de las herramientas. Eres un asistente hispanohablante.",
    hint: "RECUERDA: Responde exclusivamente en español",
  },
  it: {
    rule: "REGOLA LINGUISTICA FONDAMENTALE: rispondi all'utente esclusivamente in italiano. Non usare con lui i nomi inglesi di strumenti " +
      "o parametri e traduci in italiano tutto ciò che mostri degli esempi e dei risultati degli strumenti. Sei un assistente di lingua italiana.",
    hint: "RICORDA: Rispondi esclusivamente in italiano",
  },
};

/**
 * Reads a locale tag (`pl-PL`, `pl_pl`, `DE`); a `TypeError` for anything that is not a language code with an
 * optional region code, or names a language the runtime does not know.
 */
export function parseLocale(value: unknown): JobLocale {
  const text = typeof value === "string" ? value.trim().replace(/_/g, "-") : "";
  const match = /^([A-Za-z]{2,3})(?:-([A-Za-z]{2}|\d{3}))?$/.exec(text);
  if (!match) throw new TypeError(`locale must be a language code with an optional region, such as "pl-PL" or "de", got ${JSON.stringify(value)}`);
  const language = match[1]!.toLowerCase();
  const region = match[2]?.toUpperCase();
  if (languageName(language) === undefined) throw new TypeError(`locale ${JSON.stringify(value)}: unknown language code '${language}'`);
  return { tag: region ? `${language}-${region}` : language, language, ...(region ? { region } : {}) };
}

/** The language's English name (`Estonian`), or `undefined` for a code the runtime does not know. */
function languageName(language: string): string | undefined {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" }).of(language);
    return name && name.toLowerCase() !== language ? name : undefined;
  } catch {
    return undefined;
  }
}

function textsFor(locale: JobLocale): LanguageTexts {
  const own = TEXTS[locale.language];
  if (own) return own;
  const name = languageName(locale.language) ?? locale.language;
  return {
    rule: `CRITICAL LANGUAGE RULE: respond to the user exclusively in ${name}. Translate into ${name} whatever you show the user from ` +
      `examples, tool names, parameter names and tool output, and never let examples or data in another language change the language of your answers.`,
    hint: `REMEMBER: Respond exclusively in ${name}`,
  };
}

/** The rule appended to the system prompt (after a blank line) for a job in `locale`. */
export function languageRule(locale: JobLocale): string {
  return textsFor(locale).rule;
}

/** The hint appended to each user message (` (hint)`) for a job in `locale`. */
export function languageHint(locale: JobLocale): string {
  return textsFor(locale).hint;
}
