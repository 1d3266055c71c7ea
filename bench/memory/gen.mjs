// gen.mjs — a seeded generator of long multi-session conversations for the
// memory retrieval benchmark (bench/memory.sh, bench/README.md "Memory
// benchmark"). Nothing generated is committed: the same seed always gives
// the same data set.
//
// A conversation is `sessions` sessions of small talk between a user and an
// assistant. Facts about the user (pets, family, work, places, tastes) are
// stated once, in one user message, somewhere in the first half; some of
// them change later ("we moved to …"). Questions about them are asked many
// sessions later, phrased differently from the statement (other words,
// inflections, spelling variants); every question names the message that
// holds its answer. Changed facts also yield as-of questions: what was true
// at the end of a given session, answered by the statement then in force.
// Distractor messages reuse the facts' nouns in other contexts.
//
//   import { generate, fillerMessages } from "./gen.mjs";
//   const ds = generate({ seed: 42, sessions: 60 });
//   ds.sessions: [[{role, content}]], ds.questions: [{q, session, msg, fact}],
//   ds.asof: [{q, key, afterSession, value, session, msg}], ds.facts: [...]
//
// Run directly to print a summary: node gen.mjs [seed] [sessions]

export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (r, a) => a[Math.floor(r() * a.length)];

// Fact templates: key, values, how the user states it, how it changes, and
// paraphrased questions (none repeats the statement verbatim).
const FACTS = [
  { key: "dog_name", values: ["Biscuit", "Pepper", "Rusty", "Nala", "Otto"],
    say: ["By the way, my dog is called {v}.", "Our dog's name is {v}, he is three now."],
    ask: ["What are my dogs called again?", "name of my doggy?", "What did I name my puppy?"] },
  { key: "cat_name", values: ["Mochi", "Luna", "Tiger", "Socks"],
    say: ["We adopted a cat last year and named her {v}."],
    ask: ["the cats we adopted, what are they named?", "What is my kitty's name?", "what name did we give our pet after the adoption?"] },
  { key: "home_city", values: ["Lisbon", "Hamburg", "Toronto", "Osaka", "Valencia", "Leipzig"],
    say: ["I live in {v} these days.", "Home for me is {v}."],
    change: ["Big news: we relocated to {v} last week.", "I moved house, I'm living in {v} now."],
    ask: ["Which city am I living in?", "where's my home these days?", "where do I reside at present?"] },
  { key: "employer", values: ["Siemens", "a small bakery", "the city library", "Zalando", "a hospital"],
    say: ["I work at {v}.", "My job is at {v}."],
    change: ["I changed jobs, I'm now employed at {v}.", "Started a new position at {v} this month."],
    ask: ["Who employs me?", "where am I working?", "what company pays my salary?"] },
  { key: "manager", values: ["Anna Weber", "Tom Becker", "Priya Nair", "Lukas Braun"],
    say: ["My manager is {v}.", "I report to {v} at work."],
    change: ["My boss changed, I now report to {v}.", "New manager at work: {v}."],
    ask: ["who am I reporting to?", "who is my manager at the moment?", "name of my supervisor?"] },
  { key: "favourite_colour", values: ["teal", "burgundy", "mustard yellow", "forest green"],
    say: ["My favourite colour is {v}."],
    ask: ["What's my favorite color?", "which colours do I like best?", "the shade I prefer?"] },
  { key: "allergy", values: ["peanuts", "shellfish", "pollen", "penicillin"],
    say: ["Important: I am allergic to {v}."],
    ask: ["What allergies do I have?", "my allergic reaction, to what?", "which foods or drugs must I avoid?"] },
  { key: "birthday", values: ["March 3rd", "July 14th", "November 22nd", "January 9th"],
    say: ["My birthday is on {v}."],
    ask: ["When is my birth day?", "on which date do I celebrate my birthdays?", "when was I born?"] },
  { key: "car", values: ["a blue Skoda", "an old VW Golf", "a Tesla Model 3", "a red Fiat 500"],
    say: ["I drive {v}."],
    change: ["I sold the old car and bought {v}.", "We replaced our car with {v}."],
    ask: ["What car am I driving?", "which cars did I buy?", "which vehicle do I own now?"] },
  { key: "sister", values: ["Clara", "Mia", "Sofia", "Hannah"],
    say: ["My sister {v} is visiting next month."],
    ask: ["What's my sister called?", "which sibling is visiting?", "who is coming to visit next month?"] },
  { key: "partner", values: ["Jonas", "Elena", "Marco", "Yuki"],
    say: ["My partner {v} cooks dinner most evenings."],
    ask: ["Who is my partner?", "who cooks dinner in the evenings?", "what's the name of my significant other?"] },
  { key: "diet", values: ["vegetarian", "vegan", "pescatarian", "gluten-free"],
    say: ["I eat {v} food only."],
    change: ["I've switched my diet, I'm {v} now."],
    ask: ["What food do I eat?", "what diet am I on?", "any dietary restrictions I have?"] },
  { key: "hobby", values: ["bouldering", "playing the cello", "pottery", "birdwatching"],
    say: ["On weekends I love {v}."],
    ask: ["What do I love doing at the weekend?", "what is my hobby?", "what do I do in my spare time?"] },
  { key: "team", values: ["FC St. Pauli", "Borussia Dortmund", "Benfica", "the Raptors"],
    say: ["I support {v}, never miss a match."],
    ask: ["Which team do I support?", "which matches do I never miss?", "what club am I a fan of?"] },
  { key: "phone", values: ["an iPhone 12", "a Pixel 7", "a Fairphone 4"],
    say: ["My phone is {v}."],
    change: ["I upgraded my phone to {v}."],
    ask: ["What phone do I have?", "which smartphone did I upgrade to?", "my mobile device model?"] },
  { key: "commute", values: ["by bike", "by tram", "on foot", "by train"],
    say: ["I commute to work {v} every day."],
    change: ["These days I get to work {v}."],
    ask: ["How do I commute?", "how do I get to work?", "what's my way of getting to the office?"] },
  { key: "coffee", values: ["a flat white", "black coffee", "an oat latte", "espresso"],
    say: ["Every morning I order {v}."],
    change: ["I switched my morning order to {v}."],
    ask: ["What coffee do I order?", "what's my usual morning drink?", "my caffeine preference?"] },
  { key: "language", values: ["Portuguese", "Japanese", "Italian", "Dutch"],
    say: ["I'm learning {v} in evening classes."],
    change: ["I dropped the old course and started learning {v}."],
    ask: ["Which language am I learning?", "what language course do I take in the evening?", "what am I studying at night school?"] },
  { key: "wifi", values: ["SunnyBanana42", "BlueOtter_77", "maple-tree-19"],
    say: ["Note the wifi password at home: {v}."],
    change: ["We changed the home wifi password to {v}."],
    ask: ["What's the home wi-fi password?", "the passwords of our wireless network?", "how do I get online at home?"] },
  { key: "doctor", values: ["Dr. Fischer", "Dr. Okafor", "Dr. Lindqvist"],
    say: ["My GP is {v}."],
    ask: ["Who is my GP?", "which doctor do I see?", "who's my family physician?"] },
];

const TOPICS = ["weather", "weekend", "movies", "the news", "a recipe", "holidays", "the garden",
  "a podcast", "the traffic", "a book", "the gym", "groceries", "a concert", "taxes", "the office",
  "music", "a museum", "the neighbours", "a birthday party", "the train", "a walk", "the park",
  "a restaurant", "cleaning", "a game", "painting", "a meeting", "emails", "the budget", "a trip"];
const FILLER_USER = [
  "Can you suggest something about {t}?", "I was thinking about {t} today.",
  "What do you know about {t}?", "Tell me a fun fact about {t}.", "Any tips for {t}?",
  "I'm a bit tired of {t}, honestly.", "Let's talk about {t} for a moment.",
  "Do you remember what we said about {t}?", "My friend asked me about {t}.",
  "How should I plan {t} this week?"];
const FILLER_ASSISTANT = [
  "Sure, here are a few ideas about {t}.", "That sounds nice, {t} can be relaxing.",
  "Good question about {t}; it depends on your schedule.", "I'd keep {t} simple this time.",
  "Here is a short summary regarding {t}.", "Noted, I'll keep {t} in mind.",
  "Many people enjoy {t} on weekends.", "Let me know if you want more on {t}."];
// Distractors share the facts' nouns in other contexts.
const DISTRACT = [
  "My neighbour's dog barks all night.", "The cat cafe downtown is closing.",
  "Which city has the best museums?", "My colleague works at a bakery too.",
  "My friend's boss is very strict.", "I saw a car crash on the way home.",
  "The colour of the new office walls is odd.", "Birthday parties are exhausting.",
  "My sister-in-law loves pottery.", "The team meeting ran late again.",
  "Phones are so expensive these days.", "The train was late, the commute took ages.",
  "Coffee prices went up again.", "Learning a language takes patience.",
  "The wifi at the office is slow.", "The doctor's office called about paperwork.",
  "Diet trends come and go.", "Our partner company sent a proposal.",
  "What hobby would you recommend for winter?", "Which football club won yesterday?"];

function filler(r, role) {
  return pick(r, role === "user" ? FILLER_USER : FILLER_ASSISTANT).replace("{t}", pick(r, TOPICS));
}

// Small talk for the scale test: n messages, deterministic.
export function fillerMessages(seed, n) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < n; i++) {
    const role = i % 2 ? "assistant" : "user";
    const base = r() < 0.1 ? pick(r, DISTRACT) : filler(r, role);
    out.push({ role, content: `${base} (#${i})` }); // unique: de-duplication would skip repeats
  }
  return out;
}

export function generate({ seed = 42, sessions = 60, perSession = [16, 30] } = {}) {
  const r = rng(seed);
  const conv = Array.from({ length: sessions }, () => []);
  // Plan: each fact stated in one of the first 40% sessions, changes later.
  const facts = [];
  for (const f of FACTS) {
    const values = [...f.values].sort(() => r() - 0.5);
    const s0 = Math.floor(r() * sessions * 0.4);
    const timeline = [{ value: values[0], session: s0, text: pick(r, f.say).replace("{v}", values[0]) }];
    if (f.change) {
      const changes = 1 + (r() < 0.4 ? 1 : 0);
      let s = s0;
      for (let c = 1; c <= changes && c < values.length; c++) {
        s = s + 3 + Math.floor(r() * (sessions * 0.25));
        if (s >= sessions - 8) break;
        timeline.push({ value: values[c], session: s, text: pick(r, f.change).replace("{v}", values[c]) });
      }
    }
    facts.push({ key: f.key, ask: f.ask, timeline });
  }
  // Fill sessions with small talk, then insert fact statements at random positions.
  for (let s = 0; s < sessions; s++) {
    const n = perSession[0] + Math.floor(r() * (perSession[1] - perSession[0]));
    for (let i = 0; i < n; i++) {
      const role = i % 2 ? "assistant" : "user";
      conv[s].push({ role, content: role === "user" && r() < 0.15 ? pick(r, DISTRACT) : filler(r, role) });
    }
  }
  for (const f of facts)
    for (const t of f.timeline) {
      const msgs = conv[t.session];
      const at = 2 * Math.floor(r() * (msgs.length / 2)); // a user turn
      msgs.splice(at, 0, { role: "user", content: t.text }, { role: "assistant", content: "Thanks, I'll remember that." });
      t.ref = { session: t.session, content: t.text };
    }
  // Locate statements (indexes shift with insertions).
  for (const f of facts)
    for (const t of f.timeline) t.msg = conv[t.session].findIndex((m) => m.content === t.text);
  // Questions: asked in the last quarter of sessions, about the value in force then.
  const questions = [];
  for (const f of facts) {
    for (const q of f.ask) {
      const cur = f.timeline[f.timeline.length - 1];
      questions.push({ q, fact: f.key, session: cur.session, msg: cur.msg, value: cur.value });
    }
  }
  // As-of questions: for facts that changed, the value after each version's session.
  const asof = [];
  for (const f of facts) {
    if (f.timeline.length < 2) continue;
    f.timeline.forEach((t, i) => {
      asof.push({ q: f.ask[i % f.ask.length], key: f.key, afterSession: t.session, value: t.value,
                  session: t.session, msg: t.msg });
    });
  }
  return { sessions: conv, facts, questions, asof };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const ds = generate({ seed: +(process.argv[2] || 42), sessions: +(process.argv[3] || 60) });
  const msgs = ds.sessions.reduce((n, s) => n + s.length, 0);
  console.log(JSON.stringify({ sessions: ds.sessions.length, messages: msgs, facts: ds.facts.length,
    changed: ds.facts.filter((f) => f.timeline.length > 1).length, questions: ds.questions.length,
    asof: ds.asof.length }));
}
