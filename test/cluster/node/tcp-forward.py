#!/usr/bin/env python3
"""tcp-forward.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT

Forwards every TCP connection to LISTEN_HOST:LISTEN_PORT to TARGET_HOST:TARGET_PORT, bytes as they
come (TLS passes through untouched). node.sh runs it so that the node's pods reach the API server,
which listens on 127.0.0.1 only, at the node's address (services.sh, start_apiserver_forward).
"""
import asyncio
import sys


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass


async def main(listen_host: str, listen_port: int, target_host: str, target_port: int) -> None:
    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        try:
            target_reader, target_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, target_writer), pipe(target_reader, client_writer))
        target_writer.close()
        client_writer.close()

    server = await asyncio.start_server(handle, listen_host, listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])))
