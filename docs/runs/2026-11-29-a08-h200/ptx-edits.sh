s=51244; e=53198
v() { name=$1; shift; sed "$s,$e{$*}" base.ptx > $name.ptx; }
v E0 ''
v E1 '/stmatrix.sync/d'
v E2 '/cp.async.bulk.tensor.4d.global.shared/d;/cp.async.bulk.commit_group/d;/cp.async.bulk.wait_group.read/d'
v E3 '/stmatrix.sync/d;/cp.async.bulk.tensor.4d.global.shared/d;/cp.async.bulk.commit_group/d;/cp.async.bulk.wait_group.read/d'
v E4 's/@p cp.async.bulk.tensor.4d.global.shared::cta.bulk_group \[%rd81, {%r536, %r30, %r103, %r102}\], \[%r537\];/.reg .b32 u30, u537; shfl.sync.idx.b32 u30, %r30, 0, 0x1f, -1; shfl.sync.idx.b32 u537, %r537, 0, 0x1f, -1; @p cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%rd81, {%r536, u30, %r103, %r102}], [u537];/'
v E5 's/@p cp.async.bulk.commit_group; }/@p cp.async.bulk.commit_group; bar.warp.sync -1; }/'
v E6 '/fence.proxy.async.shared::cta/d'
v E7 '/bar.sync %r24, %r535/d;/bar.sync %r24, %r447/d'
v E8 's/{ .reg .pred p; setp.ne.u32 p, %r538, 0; @p cp.async.bulk.tensor/{ .reg .pred p; setp.ne.u32 p, %r538, 0; cp.async.bulk.tensor/'
sed -e 's/@p cp.async.bulk.commit_group; }/@p cp.async.bulk.commit_group; bar.warp.sync -1; }/' E4.ptx > E9.ptx
for f in E*.ptx; do n=${f%.ptx}; ( ptxas -arch=sm_90a -v -e a08_tma_store_bf16_d64 $f -o /tmp/$n.cubin > $n.log 2>&1; cuobjdump -sass /tmp/$n.cubin > $n.sass; echo "$n: $(grep -Eo 'Used [0-9]+ registers' $n.log), $(grep -Eo '[0-9]+ bytes spill stores' $n.log), R2UR $(grep -c R2UR $n.sass), BRA.DIV $(grep -c BRA.DIV $n.sass), BRA.U.ANY $(grep -c BRA.U.ANY $n.sass), insts $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $n.sass) $(grep -m3 -E 'error|warning' $n.log | tr '\n' ' ')" ) & done > summary.txt; wait; sort summary.txt
