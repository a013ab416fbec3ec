/**
 * Modules of the reader's own project that guides import by name (`code-blocks.ts` checks the
 * blocks with these): ambient declarations, so this file has no import of its own.
 */
declare module '@prisma/client' {
  interface PrismaUser {
    id: string;
    email: string;
    name: string;
    passwordHash: string;
  }
  export class PrismaClient {
    user: {
      findUnique(query: {
        where: Partial<PrismaUser>;
        select?: Partial<Record<keyof PrismaUser, true>>;
      }): Promise<PrismaUser | null>;
    };
  }
}

declare module '@/lib/accounts' {
  export const auth: import('@gatehousejs/core').Gatehouse;
  export function checkPassword(email: string, password: string): Promise<string | null>;
  export function startSession(sub: string, authTime: number): string;
}
