// A consumer of the API: fetches records and uses their fields with the published types,
// imported by the package name as any other project would.
import type { NamedRef, Stat, Type } from 'creature-reference-service';

async function get<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as T;
}

const names = (refs: NamedRef[]): string => refs.map((r) => r.name).join(', ') || 'nothing';

/** One line on a type: what it hits hard, and what hits it hard. */
export async function typeSummary(baseUrl: string, name: string): Promise<string> {
  const type = await get<Type>(`${baseUrl}/api/v2/type/${name}/`);
  const { double_damage_to, double_damage_from } = type.damage_relations;
  return `${type.name} (#${type.id}): strong against ${names(double_damage_to)}; weak to ${names(double_damage_from)}`;
}

/** One line on a stat, following its link to the damage class. */
export async function statSummary(baseUrl: string, name: string): Promise<string> {
  const stat: Stat = await get<Stat>(`${baseUrl}/api/v2/stat/${name}/`);
  const damageClass = await get<{ name: string }>(stat.move_damage_class.url);
  const english = stat.names.find((n) => n.language.name === 'en')?.name ?? stat.name;
  const battleOnly = stat.is_battle_only === true ? ', battle only' : '';
  return `${english} (game index ${stat.game_index}, ${damageClass.name}${battleOnly})`;
}
