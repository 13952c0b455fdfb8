import { StatekError } from "./statek-error.ts";

/** A job names an agent role that is not registered in this process. */
export class NoSuchAgentError extends StatekError {
  readonly role: string;
  readonly registeredRoles: string[];

  constructor({ role, registeredRoles }: { role: string; registeredRoles: string[] }) {
    const known = registeredRoles.length ? `registered: ${registeredRoles.join(", ")}` : "no agents are registered";
    super({
      name: "NoSuchAgentError",
      message: `no agent with role '${role}' is registered in this process (${known}); pass it to Statek.open({ agents }) or statek.register(agent)`,
    });
    this.role = role;
    this.registeredRoles = registeredRoles;
  }
}
