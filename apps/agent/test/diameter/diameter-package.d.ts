/** The part of the `diameter` package (node-diameter 0.7, CommonJS, untyped) the test peers use. */
declare module 'diameter' {
  import type net from 'node:net';

  namespace diameter {
    /** An AVP in array form: name (or code) and value; a Grouped AVP's value is its AVPs. */
    type Avp = [string | number, AvpValue];
    type AvpValue = string | number | Buffer | Avp[];

    interface Message {
      header: {
        commandCode: number;
        applicationId: number;
        hopByHopId: number;
        endToEndId: number;
        flags: { request: boolean; proxiable: boolean; error: boolean };
      };
      /** The command's name in the dictionary, e.g. 'Capabilities-Exchange'. */
      command: string;
      body: Avp[];
    }

    interface Connection {
      /** A request with a random Session-Id AVP first in its body. */
      createRequest(application: string | number, command: string | number): Message;
      /** Rejects when no answer comes within timeoutMs (default: the options' timeout, or 3 s). */
      sendRequest(request: Message, timeoutMs?: number): Promise<Message>;
      end(): void;
    }

    /** What a socket emits as 'diameterMessage' for each request it receives. */
    interface RequestEvent {
      message: Message;
      /** The answer, prefilled (header, Session-Id): add AVPs, then pass it to callback. */
      response: Message;
      callback(response: Message): void;
    }

    interface Socket extends net.Socket {
      diameterConnection: Connection;
    }

    interface Options {
      timeout?: number;
      beforeAnyMessage?: (message: Message) => void;
      afterAnyMessage?: (message: Message) => void;
    }
  }

  const diameter: {
    createServer(
      options: diameter.Options & net.ServerOpts,
      listener: (socket: diameter.Socket) => void,
    ): net.Server;
    createConnection(
      options: diameter.Options & net.TcpNetConnectOpts,
      listener?: () => void,
    ): diameter.Socket;
  };
  export = diameter;
}
