/** Two notes on one subject that share only its rare word, "sourdough", in both titles. */
export const SOURDOUGH = [
  { slug: 'sourdough-starter', title: 'Sourdough starter care', body: 'Feed the sourdough starter daily with rye flour.' },
  { slug: 'sourdough-baking', title: 'Sourdough baking schedule', body: 'Bake sourdough loaves on Saturday mornings.' },
] as const;

/** Two unrelated notes that share only an everyday word, "daily", not in their titles. */
export const SHARING_DAILY = [
  { slug: 'bike-commute', title: 'Bike commute', body: 'Ride daily.' },
  { slug: 'tomato-seedlings', title: 'Tomato seedlings', body: 'Water them daily.' },
] as const;
