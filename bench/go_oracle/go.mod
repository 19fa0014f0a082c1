module goracle

go 1.19
