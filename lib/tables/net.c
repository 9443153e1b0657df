/*
 * net.c - the network table: one row per TCP or UDP event of the kernel's
 * TcpIp and UdpIp groups, and of the Microsoft-Windows-Kernel-Network
 * provider when its events decode (a manifest, or the trace's metadata).
 *
 * Both give the process (PID), the bytes (size), and the addresses and ports
 * as saddr/sport and daddr/dport: the local end first, the remote one second,
 * for sends and receives alike (checked on the corpus: a connection's
 * Accept, Recv and Send records give the same four).  The operation comes
 * from the opcode (kernel) or the event id (Kernel-Network): 10 send,
 * 11 receive, 12 connect, 13 disconnect, 14 retransmit, 15 accept,
 * 16 reconnect, 17 fail, 18 copy; IPv6 the same plus 16.  Kernel-Network's
 * UDP events are 42 and 43 (IPv4 send and receive), 58 and 59 (IPv6).
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "tables/tables.h"

static const struct etl_guid kernel_network = { 0x7dd42a49, 0x5329, 0x4832,
						{ 0x8d, 0xfd, 0x43, 0xd9, 0x79, 0x15, 0x3a, 0x88 } };


static const char *op_name(unsigned op)
{
	static const char *const names[] = { "send", "receive", "connect", "disconnect", "retransmit", "accept",
					     "reconnect", "fail", "copy" };

	if (op >= 26 && op <= 34)
		op -= 16;
	return op >= 10 && op <= 18 ? names[op - 10] : NULL;
}

int etl__net_event(struct etl_tables *T, const struct etl_event *ev, int group)
{
	struct etl_table *t = T->tab[TK_NETWORK];
	const struct etl_decoded *d;
	unsigned code = group >= 0 ? etl_event_opcode(ev) : etl_event_id(ev);
	const char *proto = group == G_UDPIP ? "udp" : "tcp", *op;
	uint64_t pid, v;
	size_t row;
	int ok;

	if (!t)
		return 0;
	if (group < 0 && code >= 42 && code <= 59) { /* Kernel-Network's UDP */
		proto = "udp";
		code = code == 42 || code == 58 ? 10 : code == 43 || code == 59 ? 11 : 0;
	}
	if (!(op = op_name(code)) || !(d = etl__tables_decode(T, ev)) || (row = etl__table_row(t)) == SIZE_MAX)
		return 0;
	etl__table_u64(t, row, NW_TRACE, (uint64_t)etl_event_trace_index(ev));
	etl__table_u64(t, row, NW_TIME, etl_event_filetime(ev));
	pid = etl__tables_field_u64(d, "PID", &ok);
	if (!ok)
		pid = etl_reader_event_pid(T->r, ev);
	if (pid != ETL_ID_NONE) {
		etl__table_u64(t, row, NW_PID, pid);
		etl__table_text(t, row, NW_PROCESS, pid == 0 ? "Idle" : etl__tables_process_name(T, ev, (uint32_t)pid));
	}
	etl__table_text(t, row, NW_PROTOCOL, proto);
	etl__table_text(t, row, NW_OPERATION, op);
	etl__table_text(t, row, NW_LOCAL_ADDR, etl__tables_field_text(d, "saddr"));
	if ((v = etl__tables_field_u64(d, "sport", &ok)), ok)
		etl__table_u64(t, row, NW_LOCAL_PORT, v);
	etl__table_text(t, row, NW_REMOTE_ADDR, etl__tables_field_text(d, "daddr"));
	if ((v = etl__tables_field_u64(d, "dport", &ok)), ok)
		etl__table_u64(t, row, NW_REMOTE_PORT, v);
	if ((v = etl__tables_field_u64(d, "size", &ok)), ok)
		etl__table_u64(t, row, NW_BYTES, v);
	etl__table_text(t, row, NW_SOURCE, group >= 0 ? "kernel" : "Kernel-Network");
	etl__tables_row_done(T, TK_NETWORK);
	return 0;
}

const struct tables_part etl__tables_part_net = {
	.name = "network", .groups = GROUP_BIT(G_TCPIP) | GROUP_BIT(G_UDPIP),
	.providers = { { &kernel_network, -1 } },
	.event = etl__net_event,
};
