/*
 * xid.h - what an XID code means, for the err_msg label dcgm-exporter 4.x
 * gives DCGM_FI_DEV_XID_ERRORS: a short description of each common XID,
 * written from NVIDIA's XID catalogue.
 *
 * Ownership: a static, read-only table. Threading: reentrant.
 */
#ifndef GW_EXPORT_XID_H
#define GW_EXPORT_XID_H

/* The description of an XID code; "No Error" for 0, "Unknown XID" for a code not in the table. */
const char *gw_xid_text(unsigned int code);

#endif
