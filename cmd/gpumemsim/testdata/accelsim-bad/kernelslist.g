MemcpyHtoD,0x0000000010000000,8192
kernel-9.traceg
