MemcpyHtoD,0x0000000010000000,8192
kernel-1.traceg
kernel-2.traceg
MemcpyDtoH,0x0000000010002000,8192
