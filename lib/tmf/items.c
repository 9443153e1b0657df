/*
 * items.c - the WPP item types a TMF file names (ItemLong, ItemNTSTATUS,
 * ItemListByte(...), ...): for each, the value type libetl decodes it as.
 * The payload layout of each is that of the WPP macros that log it: fixed-size
 * values little-endian, pointers and sizes of the record's pointer size,
 * ItemString / ItemWString NUL-terminated, ItemPString / ItemPWString a
 * 16-bit byte count then the characters, ItemHexDump a 16-bit count then the
 * bytes, ItemNWString UTF-16 to the end of the payload, ItemIPV6Addr and
 * ItemMACAddr 16 and 6 bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#include <string.h>

#include "tmf/tmf.h"
#include "tmf/items.h"

static const struct tmf_item_type types[] = {
	{ "ItemChar", TI_CHAR, ETL_IN_INT8, ETL_OUT_NULL, 1, 0 },
	{ "ItemUChar", TI_UCHAR, ETL_IN_UINT8, ETL_OUT_NULL, 1, 0 },
	{ "ItemCharSign", TI_CHAR, ETL_IN_INT8, ETL_OUT_NULL, 1, 0 },
	{ "ItemCharShort", TI_CHAR, ETL_IN_INT8, ETL_OUT_NULL, 1, 0 },
	{ "ItemShort", TI_SHORT, ETL_IN_INT16, ETL_OUT_NULL, 2, 0 },
	{ "ItemUShort", TI_USHORT, ETL_IN_UINT16, ETL_OUT_NULL, 2, 0 },
	{ "ItemLong", TI_LONG, ETL_IN_INT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemULong", TI_ULONG, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemULongX", TI_ULONG, ETL_IN_UINT32, ETL_OUT_HEXINT32, 4, 0 },
	{ "ItemLongX", TI_ULONG, ETL_IN_UINT32, ETL_OUT_HEXINT32, 4, 0 },
	{ "ItemLongLong", TI_LONGLONG, ETL_IN_INT64, ETL_OUT_NULL, 8, 0 },
	{ "ItemLongLongX", TI_LONGLONG, ETL_IN_INT64, ETL_OUT_HEXINT64, 8, 0 },
	{ "ItemLongLongXX", TI_LONGLONG, ETL_IN_INT64, ETL_OUT_HEXINT64, 8, 0 },
	{ "ItemLongLongO", TI_LONGLONG, ETL_IN_INT64, ETL_OUT_NULL, 8, 0 },
	{ "ItemULongLong", TI_ULONGLONG, ETL_IN_UINT64, ETL_OUT_NULL, 8, 0 },
	{ "ItemULongLongX", TI_ULONGLONG, ETL_IN_UINT64, ETL_OUT_HEXINT64, 8, 0 },
	{ "ItemULongLongXX", TI_ULONGLONG, ETL_IN_UINT64, ETL_OUT_HEXINT64, 8, 0 },
	{ "ItemPtr", TI_PTR, ETL_IN_POINTER, ETL_OUT_NULL, 0, 0 },
	{ "ItemSize", TI_SIZE, ETL_IN_SIZET, ETL_OUT_NULL, 0, 0 },
	{ "ItemDouble", TI_DOUBLE, ETL_IN_DOUBLE, ETL_OUT_NULL, 8, 0 },
	{ "ItemString", TI_STRING, ETL_IN_ANSISTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemRString", TI_STRING, ETL_IN_ANSISTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemWString", TI_WSTRING, ETL_IN_UNICODESTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemRWString", TI_WSTRING, ETL_IN_UNICODESTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemPString", TI_PSTRING, ETL_IN_COUNTEDANSISTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemPWString", TI_PWSTRING, ETL_IN_COUNTEDSTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemGuid", TI_GUID, ETL_IN_GUID, ETL_OUT_NULL, 16, 0 },
	{ "ItemCLSID", TI_GUID, ETL_IN_GUID, ETL_OUT_NULL, 16, 0 },
	{ "ItemIID", TI_GUID, ETL_IN_GUID, ETL_OUT_NULL, 16, 0 },
	{ "ItemLIBID", TI_GUID, ETL_IN_GUID, ETL_OUT_NULL, 16, 0 },
	{ "ItemNTSTATUS", TI_NTSTATUS, ETL_IN_UINT32, ETL_OUT_NTSTATUS, 4, 0 },
	{ "ItemNDIS_STATUS", TI_NTSTATUS, ETL_IN_UINT32, ETL_OUT_NTSTATUS, 4, 0 },
	{ "ItemWINERROR", TI_WINERROR, ETL_IN_UINT32, ETL_OUT_WIN32ERROR, 4, 0 },
	{ "ItemHRESULT", TI_HRESULT, ETL_IN_INT32, ETL_OUT_HRESULT, 4, 0 },
	{ "ItemListByte", TI_LIST, ETL_IN_UINT8, ETL_OUT_NULL, 1, 0 },
	{ "ItemListShort", TI_LIST, ETL_IN_UINT16, ETL_OUT_NULL, 2, 0 },
	{ "ItemListLong", TI_LIST, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemSetByte", TI_SET, ETL_IN_UINT8, ETL_OUT_NULL, 1, 0 },
	{ "ItemSetShort", TI_SET, ETL_IN_UINT16, ETL_OUT_NULL, 2, 0 },
	{ "ItemSetLong", TI_SET, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemIPAddr", TI_IPADDR, ETL_IN_UINT32, ETL_OUT_IPV4, 4, 0 },
	{ "ItemPort", TI_PORT, ETL_IN_UINT16, ETL_OUT_PORT, 2, 0 },
	{ "ItemTimestamp", TI_TIMESTAMP, ETL_IN_FILETIME, ETL_OUT_NULL, 8, 0 },
	{ "ItemTimeDelta", TI_DELTA, ETL_IN_INT64, ETL_OUT_NULL, 8, 0 },
	{ "ItemWaitTime", TI_DELTA, ETL_IN_INT64, ETL_OUT_NULL, 8, 0 },
	{ "ItemSid", TI_SID, ETL_IN_SID, ETL_OUT_NULL, 0, 0 },
	{ "ItemHexDump", TI_HEXDUMP, ETL_IN_COUNTEDBINARY, ETL_OUT_NULL, 0, 0 },
	{ "ItemHEXDump", TI_HEXDUMP, ETL_IN_COUNTEDBINARY, ETL_OUT_NULL, 0, 0 },
	{ "ItemChar4", TI_CHAR4, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemEnum", TI_ENUM, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemFlagsEnum", TI_ENUM, ETL_IN_UINT32, ETL_OUT_HEXINT32, 4, 0 },
	/* older names of tracefmt's list */
	{ "ItemIPV6Addr", TI_BINARY, ETL_IN_BINARY, ETL_OUT_IPV6, 0, 16 },
	{ "ItemMACAddr", TI_BINARY, ETL_IN_BINARY, ETL_OUT_NULL, 0, 6 },
	{ "ItemWChar", TI_WCHAR, ETL_IN_UNICODECHAR, ETL_OUT_NULL, 2, 0 },
	{ "ItemNWString", TI_WSTRING, ETL_IN_NONNULLTERMINATEDSTRING, ETL_OUT_NULL, 0, 0 },
	{ "ItemNTerror", TI_WINERROR, ETL_IN_UINT32, ETL_OUT_WIN32ERROR, 4, 0 },
	{ "ItemMerror", TI_ULONG, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
	{ "ItemNETEVENT", TI_ULONG, ETL_IN_UINT32, ETL_OUT_NULL, 4, 0 },
};

const struct tmf_item_type *etl__tmf_item_type(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == len && memcmp(types[i].name, name, len) == 0)
			return &types[i];
	return NULL;
}
