// Imported in every test process (.taprc): the servers, CLIs and peers a test starts run without
// tap's hooks. tap hands them down through NODE_OPTIONS (its process tracking, there for coverage,
// which is off) and through the test's own options (its ts-node and mocks; NODE_ARGS leaves those
// out): together they cost each child about 2.5 s of CPU, a CLI command 3.2 s of wall time
// instead of 1.3 s, and the suite starts hundreds of children.
const options = process.env.NODE_OPTIONS?.split(/\s+/).filter((option) => option && !option.includes('/@tapjs/')).join(' ')
if (options) process.env.NODE_OPTIONS = options
else delete process.env.NODE_OPTIONS
