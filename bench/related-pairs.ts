/**
 * Pairs of notes on one subject, worded differently: both name the subject (one or two rare words,
 * "sourdough", "telescope eyepiece") and share no other word. Each note is built from pools of
 * everyday words with a seeded generator, so the pairs vary and every run makes the same ones. The
 * gardener should judge each pair; the bench counts how many of them its candidate search shows.
 */
import { stemsOf, queryWords } from '../src/search/terms.js';
import { prng } from './generate.js';

const SUBJECTS = [
  'sourdough',
  'kombucha',
  'bonsai',
  'harpsichord',
  'terrarium',
  'origami',
  'calligraphy',
  'beehive',
  'falconry',
  'marquetry',
  'lacrosse',
  'ukulele',
  'accordion',
  'didgeridoo',
  'theremin',
  'sitar',
  'bagpipes',
  'astrolabe',
  'sextant',
  'kiln',
  'lathe',
  'loom',
  'catamaran',
  'canoe',
  'snorkel',
  'crampons',
  'hammock',
  'yurt',
  'sauna',
  'espresso',
  'matcha',
  'kimchi',
  'sauerkraut',
  'tempeh',
  'gnocchi',
  'paella',
  'baklava',
  'croissants',
  'fondue',
  'tagine',
  'aquarium',
  'axolotl',
  'iguana',
  'tortoise',
  'parakeet',
  'chinchilla',
  'ferret',
  'hedgehog',
  'alpaca',
  'orchids',
  'hydrangeas',
  'rhubarb',
  'zucchini',
  'asparagus',
  'mandolin',
  'clarinet',
  'trombone',
  'oboe',
  'xylophone',
  'banjo',
  'pickleball paddle',
  'telescope eyepiece',
  'espresso grinder',
  'kayak rudder',
  'bonsai juniper',
  'vinyl turntable',
  'drone propellers',
  'chess clock',
  'pottery wheel',
  'sewing machine',
  'snowboard bindings',
  'aquarium filter',
];

const ASPECTS = [
  'care',
  'schedule',
  'costs',
  'tools',
  'mistakes',
  'storage',
  'history',
  'plans',
  'tips',
  'setup',
  'cleaning',
  'budget',
  'supplies',
  'lessons',
  'repairs',
  'checklist',
  'goals',
  'progress',
  'problems',
  'maintenance',
  'shopping',
  'routine',
];

// Everyday words, most of them frequent in the recall bench's conversations (so common in the
// corpus the pairs are put in), with a few rarer ones a note may have of its own.
const VERBS = [
  'take',
  'give',
  'bring',
  'share',
  'check',
  'find',
  'start',
  'plan',
  'show',
  'read',
  'watch',
  'play',
  'learn',
  'create',
  'explore',
  'build',
  'join',
  'meet',
  'enjoy',
  'try',
  'finish',
  'change',
  'push',
  'grow',
  'clean',
  'store',
  'carry',
  'feed',
  'paint',
  'wrap',
  'mend',
  'tune',
  'polish',
  'weigh',
  'sort',
  'rinse',
];

const OBJECTS = [
  'book',
  'picture',
  'table',
  'game',
  'food',
  'recipe',
  'list',
  'board',
  'project',
  'screen',
  'piece',
  'bowl',
  'ball',
  'video',
  'story',
  'idea',
  'movie',
  'trophy',
  'script',
  'chocolate',
  'cream',
  'coconut',
  'music',
  'photos',
  'notes',
  'gloves',
  'bucket',
  'ladder',
  'kettle',
  'sponge',
  'basket',
  'ruler',
  'lamp',
  'blanket',
  'receipt',
  'tray',
];

const PLACES = [
  'home',
  'park',
  'beach',
  'studio',
  'room',
  'store',
  'court',
  'shelter',
  'community',
  'class',
  'city',
  'library',
  'garden',
  'kitchen',
  'garage',
  'office',
  'village',
  'harbour',
  'cellar',
  'porch',
];

const PEOPLE = ['family', 'kids', 'friends', 'team', 'group', 'mom', 'dad', 'sister', 'brother', 'neighbour', 'coach', 'cousin'];

const TIMES = [
  'last week',
  'every weekend',
  'next month',
  'on Friday',
  'yesterday',
  'tomorrow',
  'lately',
  'every year',
  'later today',
  'in summer',
  'each morning',
  'at night',
  'on Sundays',
  'twice a month',
  'before dinner',
  'after school',
];

const ADJECTIVES = [
  'good',
  'nice',
  'special',
  'little',
  'small',
  'free',
  'huge',
  'easy',
  'strong',
  'sweet',
  'perfect',
  'favorite',
  'local',
  'blue',
  'white',
  'sturdy',
];

const SENTENCES: ((w: Words) => string)[] = [
  (w) => `${cap(w.verb())} the ${w.subject()} ${w.time()} with the ${w.adjective()} ${w.object()}.`,
  (w) => `My ${w.person()} says to ${w.verb()} it in the ${w.place()} ${w.time()}.`,
  (w) => `Keep the ${w.object()} and the ${w.object()} on the ${w.adjective()} ${w.object()} in the ${w.place()}.`,
  (w) => `${cap(w.time())} I ${w.verb()} the ${w.object()} and ${w.verb()} the ${w.subject()}.`,
  (w) => `The ${w.place()} sells a ${w.adjective()} ${w.object()} that helps with the ${w.subject()}.`,
  (w) => `Remember to ${w.verb()} the ${w.object()} before you ${w.verb()} anything ${w.time()}.`,
  (w) => `We ${w.verb()} a ${w.adjective()} ${w.object()} from my ${w.person()} ${w.time()}.`,
  (w) => `Last autumn the ${w.subject()} needed a ${w.adjective()} ${w.object()} from the ${w.place()}.`,
  (w) => `Ask the ${w.person()} whether to ${w.verb()} the ${w.object()} first.`,
];

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Word choices for one note: each pool word is used at most once, and never one the other note of the pair used. */
class Words {
  readonly used = new Set<string>();
  constructor(
    private readonly r: () => number,
    private readonly subjectName: string,
    private readonly taken: Set<string>,
  ) {}
  private from(pool: string[]): string {
    const free = pool.filter((w) => !this.used.has(w) && !queryWords(w).some((x) => this.taken.has(stemsOf(x)[0])));
    const w = free[Math.floor(this.r() * free.length)] ?? pool[0];
    this.used.add(w);
    return w;
  }
  subject = () => this.subjectName;
  verb = () => this.from(VERBS);
  object = () => this.from(OBJECTS);
  place = () => this.from(PLACES);
  person = () => this.from(PEOPLE);
  time = () => this.from(TIMES);
  adjective = () => this.from(ADJECTIVES);
  aspect = () => this.from(ASPECTS);
}

export interface PairNote {
  slug: string;
  title: string;
  body: string;
}

/** A note of 2 or 3 sentences, from sentence shapes other than `usedShapes` (whose fixed words the other note has). */
function pairNote(r: () => number, subject: string, taken: Set<string>, usedShapes: Set<number>, slug: string): PairNote {
  const w = new Words(r, subject, taken);
  const title = `${cap(subject)} ${w.aspect()}`;
  const count = 2 + Math.floor(r() * 2);
  const shapes = [...SENTENCES.keys()]
    .filter((i) => !usedShapes.has(i))
    .sort(() => r() - 0.5)
    .slice(0, count);
  for (const i of shapes) usedShapes.add(i);
  const body = shapes.map((i) => SENTENCES[i](w)).join(' ');
  return { slug, title, body };
}

/** The content stems of a note (query words, stemmed). */
const stemSet = (n: PairNote) => new Set(queryWords(`${n.title} ${n.body}`).map((w) => stemsOf(w)[0]));

/**
 * `count` pairs (cycling through the subjects): the second note of each pair is worded without any
 * content word of the first but the subject's.
 */
export function relatedPairs(count: number, seed = 7): [PairNote, PairNote][] {
  const r = prng(seed);
  const pairs: [PairNote, PairNote][] = [];
  for (let i = 0; i < count; i++) {
    const subject = SUBJECTS[i % SUBJECTS.length];
    const slug = subject.replace(/\s+/g, '-');
    const shapes = new Set<number>();
    const a = pairNote(r, subject, new Set(), shapes, `${slug}-a-${i}`);
    const subjectStems = new Set(queryWords(subject).map((w) => stemsOf(w)[0]));
    const taken = new Set([...stemSet(a)].filter((s) => !subjectStems.has(s)));
    const b = pairNote(r, subject, taken, shapes, `${slug}-b-${i}`);
    pairs.push([a, b]);
  }
  return pairs;
}

/** The content stems two notes share. */
export function sharedStems(a: PairNote, b: PairNote): string[] {
  const sb = stemSet(b);
  return [...stemSet(a)].filter((s) => sb.has(s));
}
