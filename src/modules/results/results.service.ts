import { transaction, type Db } from '../../db/client.js';
import type { Member } from '../../http/pipeline/access.js';
import { badRequest, duplicate, notFound } from '../../errors/catalogue.js';
import { refusedDuplicate, refusedWrite } from '../../errors/refusals.js';
import {
  deleteNode,
  existingNodeIds,
  findNode,
  insertNode,
  listChildren,
  listProgramNodes,
  lockProgramTree,
  nodeCodeTaken,
  renumber,
  updateNode,
} from './results.repo.js';
import { programExists } from '../programs/index.js';
import type {
  CreateResultNodeInput,
  ReorderInput,
  ResultLevel,
  ResultNodeRow,
  UpdateResultNodeInput,
} from './results.schemas.js';

/** The level a node's parent must have; impacts are roots. */
const PARENT_LEVEL: Record<ResultLevel, ResultLevel | null> = {
  impact: null,
  outcome: 'impact',
  output: 'outcome',
};

export type ResultTreeNode = ResultNodeRow & { children: ResultTreeNode[] };

/** Nests a program's nodes (already in sibling order) under their parents; returns the impacts. */
export function buildTree(rows: ResultNodeRow[]): ResultTreeNode[] {
  const byId = new Map<string, ResultTreeNode>(rows.map((row) => [row.id, { ...row, children: [] }]));
  const roots: ResultTreeNode[] = [];
  for (const node of byId.values()) {
    const parent = node.parentId === null ? undefined : byId.get(node.parentId);
    if (parent) parent.children.push(node);
    else if (node.parentId === null) roots.push(node);
  }
  return roots;
}

/** `ids` with `id` put at `position` (past the end: last). */
function placeAt(ids: string[], id: string, position: number | undefined): string[] {
  const others = ids.filter((other) => other !== id);
  const at = Math.min(position ?? others.length, others.length);
  return [...others.slice(0, at), id, ...others.slice(at)];
}

const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id);

const CODE_TAKEN = 'A result node with this code already exists in the program';

/** A code as stored: trimmed, blank as none. */
const codeOf = (code: string | null | undefined) =>
  code === undefined ? undefined : code === null || code.trim() === '' ? null : code.trim();

/** A program's results framework: impact > outcome > output, siblings kept at positions 0..n-1. */
const PROGRAM_REQUIRED = {
  path: '/programId',
  rule: 'required',
  message: 'programId is required when parentId is null',
};

export class ResultNodeService {
  constructor(private readonly db: Db) {}

  /** One node, without its children (the program's tree has them). */
  async get(member: Member, id: string): Promise<ResultNodeRow> {
    const node = await findNode(this.db, member.orgId, id);
    if (!node) throw notFound('Result node');
    return node;
  }

  async tree(member: Member, programId: string): Promise<ResultTreeNode[]> {
    if (!(await programExists(this.db, member.orgId, programId))) throw notFound('Program');
    return buildTree(await listProgramNodes(this.db, member.orgId, programId));
  }

  async create(member: Member, programId: string, input: CreateResultNodeInput): Promise<ResultNodeRow> {
    const { orgId } = member;
    if (!(await programExists(this.db, orgId, programId))) throw notFound('Program');
    const parentId = input.parentId ?? null;
    const code = codeOf(input.code) ?? null;
    return transaction(this.db, async (tx) => {
      await lockProgramTree(tx, orgId, programId);
      await this.checkParent(tx, orgId, programId, input.level, parentId);
      if (code !== null && (await nodeCodeTaken(tx, orgId, programId, code))) throw duplicate(CODE_TAKEN);
      const siblings = idsOf(await listChildren(tx, orgId, programId, parentId));
      const position = Math.min(input.orderIndex ?? siblings.length, siblings.length);
      const node = await insertNode(tx, orgId, {
        programId,
        parentId,
        level: input.level,
        code,
        title: input.title.trim(),
        description: input.description ?? null,
        orderIndex: position,
      }).catch(
        // The program was deleted after the check above.
        refusedWrite({ gone: () => notFound('Program'), taken: CODE_TAKEN }),
      );
      await renumber(tx, orgId, placeAt(siblings, node.id, position));
      return node;
    });
  }

  /** Level and program never change: a node's children depend on its level. */
  async update(member: Member, id: string, input: UpdateResultNodeInput): Promise<ResultNodeRow> {
    const { orgId } = member;
    return transaction(this.db, async (tx) => {
      const node = await this.lockedNode(tx, orgId, id);
      const moving = input.parentId !== undefined && input.parentId !== node.parentId;
      if (input.parentId !== undefined) {
        await this.checkParent(tx, orgId, node.programId, node.level, input.parentId);
      }
      const code = codeOf(input.code);
      if (code && (await nodeCodeTaken(tx, orgId, node.programId, code, id))) throw duplicate(CODE_TAKEN);
      const changes = {
        ...(code !== undefined ? { code } : {}),
        ...(input.title !== undefined ? { title: input.title.trim() } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(moving ? { parentId: input.parentId } : {}),
      };
      if (Object.keys(changes).length > 0) await updateNode(tx, orgId, id, changes);
      if (moving) {
        const left = await listChildren(tx, orgId, node.programId, node.parentId);
        await renumber(tx, orgId, idsOf(left));
      }
      if (moving || input.orderIndex !== undefined) {
        const siblings = await listChildren(tx, orgId, node.programId, input.parentId ?? node.parentId);
        await renumber(tx, orgId, placeAt(idsOf(siblings), id, input.orderIndex));
      }
      const updated = await findNode(tx, orgId, id);
      if (!updated) throw notFound('Result node');
      return updated;
    }).catch(refusedDuplicate(CODE_TAKEN)); // the unique index on (org, program, lower(code)) settles a race
  }

  async delete(member: Member, id: string): Promise<void> {
    const { orgId } = member;
    await transaction(this.db, async (tx) => {
      const node = await this.lockedNode(tx, orgId, id);
      if (!(await deleteNode(tx, orgId, id))) throw notFound('Result node');
      const left = await listChildren(tx, orgId, node.programId, node.parentId);
      await renumber(tx, orgId, idsOf(left));
    });
  }

  async reorder(member: Member, input: ReorderInput): Promise<ResultNodeRow[]> {
    const { orgId } = member;
    const { parentId, orderedIds } = input;
    if (parentId === null && input.programId === undefined) {
      throw badRequest(PROGRAM_REQUIRED);
    }
    if (input.programId !== undefined && !(await programExists(this.db, orgId, input.programId))) {
      throw notFound('Program');
    }
    return transaction(this.db, async (tx) => {
      let programId = input.programId;
      if (parentId !== null) {
        const parent = await findNode(tx, orgId, parentId);
        if (!parent) throw notFound('Result node');
        if (programId !== undefined && parent.programId !== programId) {
          throw badRequest('parentId must be a node of programId');
        }
        programId = parent.programId;
      }
      if (programId === undefined) throw badRequest(PROGRAM_REQUIRED);
      await lockProgramTree(tx, orgId, programId);
      if (parentId !== null && !(await findNode(tx, orgId, parentId))) throw notFound('Result node');

      const children = idsOf(await listChildren(tx, orgId, programId, parentId));
      const current = new Set(children);
      const strangers = orderedIds.filter((id) => !current.has(id));
      const known = await existingNodeIds(tx, orgId, strangers);
      if (strangers.some((id) => !known.has(id))) throw notFound('Result node');
      const listed = new Set(orderedIds);
      const parentName = parentId === null ? 'an impact node of programId' : 'a child of parentId';
      const problems = [
        ...orderedIds.flatMap((id, i) => (current.has(id) ? [] : [`orderedIds.${i} is not ${parentName}`])),
        ...children.filter((id) => !listed.has(id)).map((id) => `orderedIds must include ${id}`),
      ];
      if (problems.length > 0) throw badRequest(...problems);

      await renumber(tx, orgId, orderedIds);
      return listChildren(tx, orgId, programId, parentId);
    });
  }

  /** The node, read again once its program's tree is locked (a concurrent delete may have removed it). */
  private async lockedNode(tx: Db, orgId: string, id: string): Promise<ResultNodeRow> {
    const found = await findNode(tx, orgId, id);
    if (!found) throw notFound('Result node');
    await lockProgramTree(tx, orgId, found.programId);
    const node = await findNode(tx, orgId, id);
    if (!node) throw notFound('Result node');
    return node;
  }

  /** impact: no parent; outcome: an impact of the same program; output: an outcome of it. */
  private async checkParent(
    tx: Db,
    orgId: string,
    programId: string,
    level: ResultLevel,
    parentId: string | null,
  ): Promise<void> {
    const expected = PARENT_LEVEL[level];
    if (expected === null) {
      if (parentId !== null) throw badRequest('parentId must be null for an impact node');
      return;
    }
    const wrongParent = badRequest(`parentId must be ${article(expected)} ${expected} node of this program`);
    if (parentId === null) throw wrongParent;
    const parent = await findNode(tx, orgId, parentId);
    if (!parent) throw notFound('Result node');
    if (parent.programId !== programId || parent.level !== expected) throw wrongParent;
  }
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
